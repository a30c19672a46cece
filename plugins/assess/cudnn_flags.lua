-- assess.cudnn_flags: cuDNN and CUDA-matmul backend switches.

local refs = require("refs")

return {
	id = "assess.cudnn_flags",
	phase = "assess",
	title = _("cuDNN / CUDA backend flags (torch.backends.cudnn.*)"),
	severity = "info",
	category = "device",
	description = _("Finds torch.backends.cudnn.* settings (benchmark, deterministic, enabled, "
		.. "allow_tf32) and torch.backends.cuda.matmul.allow_tf32. They configure NVIDIA "
		.. "libraries and have no effect on an NPU, so anything they were meant to guarantee "
		.. "(determinism, speed) must be obtained another way."),
	triggers = { "cudnn", "backends" },
	run = function(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			local map = refs.aliases(ctx, path)
			for _i, r in ipairs(refs.dotted(ctx, path, map)) do
				local name = r.resolved
				local what = name:match("^torch%.backends%.cudnn%.([%w_]+)$")
					or name:match("^torch%.backends%.cuda%.matmul%.([%w_]+)$")
				if what then
					local suggestion
					if what == "deterministic" then
						suggestion = _("It has no effect on an NPU: for reproducible runs call `torch.use_deterministic_algorithms(True)` and fix the seeds (torch_npu lists which operators are deterministic).")
					elseif what == "benchmark_limit" then
						suggestion = _("It is on the vendor's unsupported list: delete the line.")
					else
						suggestion = _("It has no effect on an NPU: it can stay, but do not rely on it; delete it once the code runs only on NPUs.")
					end
					ctx.report{
						file = path, node = r.node,
						severity = (what == "deterministic") and "warning" or nil,
						message = _("`{api}` configures an NVIDIA library (cuDNN/cuBLAS).", { api = name }),
						suggestion = suggestion,
					}
				end
			end
		end
	end,
}
