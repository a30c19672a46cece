-- assess.data_parallel: single-process multi-GPU DataParallel.

local py = require("py")

-- Local name -> full dotted name bound by the file's imports ({tc = "torch.cuda"}).
local function aliases(ctx, path)
	return py.aliases(ctx, path) or {}
end

-- Dotted names used in code: outermost attribute chains (torch.cuda.synchronize) and
-- plain callees and decorators (autocast(...), @script), each {text=, node=, resolved=,
-- plain=}, in source order. Comments and strings never appear.
local function dotted_refs(ctx, path, map)
	local out = {}
	for _, a in ipairs(py.attributes(ctx, path) or {}) do
		out[#out + 1] = { text = a.text, node = a.node }
	end
	for _, m in ipairs(ctx.query(path, "(call function: (identifier) @f) (decorator (identifier) @f)") or {}) do
		out[#out + 1] = { text = m.f.text, node = m.f, plain = true }
	end
	for _, r in ipairs(out) do r.resolved = py.expand(map, r.text) end
	table.sort(out, function(a, b) return a.node.start_byte < b.node.start_byte end)
	return out
end

local NAMES = {
	["torch.nn.DataParallel"] = true,
	["torch.nn.parallel.DataParallel"] = true,
	["torch.nn.parallel.data_parallel"] = true,
}

return {
	id = "assess.data_parallel",
	phase = "assess",
	title = "torch.nn.DataParallel (unsupported on NPU)",
	severity = "error",
	category = "distributed",
	description = "Finds torch.nn.DataParallel and torch.nn.parallel.data_parallel. DataParallel is "
		.. "not supported on NPU; multi-device training must use DistributedDataParallel with one "
		.. "process per device (launched with torchrun).",
	triggers = { "DataParallel", "data_parallel" },
	run = function(ctx)
		for _, path in ipairs(ctx.python_files()) do
			local map = aliases(ctx, path)
			for _, r in ipairs(dotted_refs(ctx, path, map)) do
				if NAMES[r.resolved] then
					ctx.report{
						file = path, node = r.node,
						message = "`" .. r.text .. "` (single-process multi-GPU training) is not supported on NPU.",
						suggestion = "Switch to DistributedDataParallel: one process per NPU started by torchrun, init_process_group('hccl'), and the model wrapped with DDP.",
					}
				end
			end
		end
	end,
}
