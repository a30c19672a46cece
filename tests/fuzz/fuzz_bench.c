/* libFuzzer target: benchmark JSON as the design and infer-optimize checks read it (plugins/lib/plan.lua, infer-optimize/bench.lua).
 * Inputs that ingest's validator accepts go to the checks as an ingested bench artifact
 * (see plugin_door.h); a check failing on one aborts.
 * fuzz-dict: json
 * fuzz-modules: app embedded_data */
#include "plugin_door.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const phases[] = { "design", "infer-optimize" };
	static door d = { .kind = "bench", .phases = phases, .nphases = 2, .validate = 1 };
	return door_run(&d, data, size);
}
