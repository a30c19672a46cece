-- lightning: PyTorch Lightning's device settings, shared by assess.lightning (which
-- reports the project and its Trainers) and adapt.lightning (which reports, and where the
-- project registers an NPU accelerator rewrites, every setting that puts the run on an
-- NVIDIA GPU).
--
--   local lightning = require("lightning")

local py = require("py")
local project = require("project")

local lightning = {}

-- the top-level packages of Lightning: 1.x, the unified 2.x package, standalone Fabric
lightning.TOPS = { pytorch_lightning = true, lightning = true, lightning_fabric = true }
-- the constructor keywords that decide the device, the process group and the precision
lightning.SETTINGS = { accelerator = 1, gpus = 2, devices = 3, num_nodes = 4, strategy = 5, precision = 6, amp_backend = 7 }
-- accelerators that are not an NVIDIA GPU (nor a choice left to Lightning)
lightning.OTHER = { cpu = true, npu = true, tpu = true, mps = true, hpu = true, ipu = true, xla = true }
-- Lightning 1.x spelled the distributed mode as the accelerator (gpus=4, accelerator="ddp")
lightning.OLD_DISTRIBUTED = { ddp = true, dp = true, ddp2 = true, ddp_spawn = true, horovod = true }
-- the accelerator names that mean an NVIDIA GPU
lightning.GPU = { gpu = true, cuda = true }

local KEYWORDS = [[(call function: (_) @func
  arguments: (argument_list (keyword_argument name: (identifier) @k value: (_) @v) @kw))]]

-- Whether a path is a test: a file under tests/ or test/, test_*.py, *_test.py, conftest.py.
function lightning.is_test(path)
	local base = path:match("[^/]*$")
	return path:match("^tests?/") or path:find("/tests?/") or base:match("^test_") or base:match("_test%.py$")
		or base == "conftest.py"
end

-- Whether a resolved dotted callee is Lightning's Trainer or Fabric: "Trainer", "Fabric" or nil.
function lightning.constructor(name)
	local top = name and name:match("^([%a_][%w_]*)%.")
	if not (top and lightning.TOPS[top]) then return nil end
	return name:match("%.(Trainer)$") or name:match("%.(Fabric)$")
end

-- The file's imports of Lightning (not of a module of the project's own that shares a
-- name): {node=, top=} each, in source order.
function lightning.imports(ctx, path)
	local own = project.own_modules(ctx)
	local out = {}
	for _i, imp in ipairs(py.imports(ctx, path) or {}) do
		local top = imp.module:match("^[%a_][%w_]*")
		if top and lightning.TOPS[top] and not own:has(top, path) then
			out[#out + 1] = { node = imp.node, top = top }
		end
	end
	return out
end

-- The keyword arguments of every call of the file, by the start byte of its callee:
-- {k=, v=, kw=} (name, value, whole argument) each.
function lightning.keywords(ctx, path)
	local kws = {}
	for _i, m in ipairs(ctx.query(path, KEYWORDS) or {}) do
		local at = m.func.start_byte
		kws[at] = kws[at] or {}
		table.insert(kws[at], m)
	end
	return kws
end

-- The Trainer(...) and Fabric(...) calls of a file that imports Lightning:
-- {call=, kind=, name=, kws=} each (kws: its keyword arguments, as lightning.keywords).
function lightning.constructors(ctx, path, kws)
	local out = {}
	for _i, c in ipairs(py.calls(ctx, path, nil, py.aliases(ctx, path) or {}) or {}) do
		local kind = lightning.constructor(c.name)
		if kind then out[#out + 1] = { call = c, kind = kind, name = c.name, kws = kws[c.func.start_byte] or {} } end
	end
	return out
end

-- Whether the text of a Python file registers something under the name "npu": the
-- name as the first argument of a `.register(` call or as its `name=`, written out or
-- as a name the file assigns "npu" to (`NAME = "npu"`).
local function registers_npu(text)
	for arg in text:gmatch("%.register%(%s*([^,%)]*)") do
		local value = arg:match("^name%s*=%s*(.-)%s*$") or arg:match("^(.-)%s*$")
		if value:match("^[\"']npu[\"']$") then return true end
		if value:match("^[%a_][%w_]*$") and (text:match("\n%s*" .. value .. "%s*=%s*[\"']npu[\"']")
			or text:match("^" .. value .. "%s*=%s*[\"']npu[\"']")) then
			return true
		end
	end
	return false
end

-- Whether the project registers an accelerator of its own under the name "npu"
-- (`accelerator_registry.register("npu", cls, ...)` in an Accelerator's
-- register_accelerators(), AcceleratorRegistry.register(name="npu", ...), the name
-- through a constant): then accelerator="npu" selects it. Once per run.
local registered_of = setmetatable({}, { __mode = "k" })
function lightning.npu_registered(ctx)
	local v = registered_of[ctx]
	if v == nil then
		v = false
		for _i, path in ipairs(ctx.files("%.py$")) do
			if ctx.find(path, "register(") and ctx.find(path, "npu") and registers_npu(ctx.read(path) or "") then
				v = path
				break
			end
		end
		registered_of[ctx] = v
	end
	return v
end

-- The Lightning entry of gpu_libraries.json (its notes hold the route, its source the facts).
function lightning.entry(ctx)
	for _i, e in ipairs(ctx.data("gpu_libraries").entries) do
		if e.name == "pytorch_lightning" then return e end
	end
end

return lightning
