/* libFuzzer target: ctx.decode_json, the host's JSON decoder for plugins (it replaced a
 * decoder written in Lua). Any bytes go to a plugin that decodes them and walks the
 * result; the decoder must return a value or nil and a reason, never raise, crash or
 * leak, and a decoded document must be walkable inside the plugin's limits.
 * fuzz-dict: json
 * fuzz-modules: app embedded_data */
#include "plugin_door.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char plugin[] =
	"local function walk(v, depth)\n"
	"  if type(v) ~= 'table' then return 1 end\n"
	"  local n = 1\n"
	"  for k, x in pairs(v) do\n"
	"    if type(k) ~= 'string' and math.type(k) ~= 'integer' then error('a key that is neither a name nor an index') end\n"
	"    n = n + walk(x, depth + 1)\n"
	"  end\n"
	"  return n\n"
	"end\n"
	"return { id = 'fuzz.json', phase = 'assess', title = 'decode_json', severity = 'info',\n"
	"  run = function(ctx)\n"
	"    local text = assert(ctx.read_artifact(1))\n"
	"    local v, why = ctx.decode_json(text)\n"
	"    if v == nil and why ~= nil and type(why) ~= 'string' then error('a reason that is not text') end\n"
	"    if v ~= nil and why ~= nil then error('a value and a reason') end\n"
	"    ctx.report{ message = 'values: ' .. walk(v, 0) }\n"
	"  end }\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const ids[] = { "fuzz.json" };
	static door d = { .kind = "bench", .ids = ids, .nids = 1, .plugin_lua = plugin };
	return door_run(&d, data, size);
}
