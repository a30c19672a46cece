-- assess.cudnn_flags: cuDNN and CUDA-matmul backend switches.

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

return {
	id = "assess.cudnn_flags",
	phase = "assess",
	title = "cuDNN / CUDA backend flags (torch.backends.cudnn.*)",
	severity = "info",
	category = "device",
	description = "Finds torch.backends.cudnn.* settings (benchmark, deterministic, enabled, "
		.. "allow_tf32) and torch.backends.cuda.matmul.allow_tf32. They configure NVIDIA "
		.. "libraries and have no effect on an NPU, so anything they were meant to guarantee "
		.. "(determinism, speed) must be obtained another way.",
	triggers = { "cudnn", "backends" },
	run = function(ctx)
		for _, path in ipairs(ctx.python_files()) do
			local map = aliases(ctx, path)
			for _, r in ipairs(dotted_refs(ctx, path, map)) do
				local name = r.resolved
				local what = name:match("^torch%.backends%.cudnn%.([%w_]+)$")
					or name:match("^torch%.backends%.cuda%.matmul%.([%w_]+)$")
				if what then
					local suggestion
					if what == "deterministic" then
						suggestion = "It has no effect on an NPU: for reproducible runs call `torch.use_deterministic_algorithms(True)` and fix the seeds (torch_npu lists which operators are deterministic)."
					elseif what == "benchmark_limit" then
						suggestion = "It is on the vendor's unsupported list: delete the line."
					else
						suggestion = "It has no effect on an NPU: it can stay, but do not rely on it; delete it once the code runs only on NPUs."
					end
					ctx.report{
						file = path, node = r.node,
						severity = (what == "deterministic") and "warning" or nil,
						message = "`" .. name .. "` configures an NVIDIA library (cuDNN/cuBLAS).",
						suggestion = suggestion,
					}
				end
			end
		end
	end,
}
