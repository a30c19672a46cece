-- assess.env_vars: CUDA/NCCL environment variables in Python and launch scripts.

local refs = require("refs")
local cuda = require("cuda")

return {
	id = "assess.env_vars",
	phase = "assess",
	title = _("CUDA and NCCL environment variables"),
	severity = "warning",
	category = "environment",
	description = _("Finds CUDA_*, CUBLAS_*, NCCL_* and TORCH_NCCL_* variables read or set in Python (os.environ, "
		.. "os.getenv) and in shell launch scripts. They have no effect on Ascend: "
		.. "CUDA_VISIBLE_DEVICES becomes ASCEND_RT_VISIBLE_DEVICES, NCCL_* settings have HCCL_* "
		.. "counterparts (env_vars.json), some with different values."),
	triggers = { "CUDA_", "NCCL_", "CUBLAS_" },
	run = function(ctx)
		local entry = cuda.env_table(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			refs.report_all(ctx, cuda.env_python(ctx, path, entry), "survey")
		end
		for _i, path in ipairs(ctx.files("%.sh$")) do
			refs.report_all(ctx, cuda.env_shell(ctx, path, entry), "survey")
		end
	end,
}
