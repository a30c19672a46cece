-- adapt.env_vars: CUDA_VISIBLE_DEVICES and friends -> their Ascend names.

local refs = require("refs")
local cuda = require("cuda")

return {
	id = "adapt.env_vars",
	phase = "adapt",
	title = _("CUDA/NCCL environment variables to their Ascend names"),
	severity = "warning",
	category = "environment",
	description = _("Renames the variables env_vars.json marks as exact renames "
		.. "(CUDA_VISIBLE_DEVICES -> ASCEND_RT_VISIBLE_DEVICES, CUDA_LAUNCH_BLOCKING -> "
		.. "ASCEND_LAUNCH_BLOCKING, TORCH_NCCL_* -> TORCH_HCCL_* ...) in Python environment keys "
		.. "and in shell scripts where the shell uses them as variables (export NAME=, NAME=... "
		.. "before a command, $NAME, ${NAME:-...}). Variables whose values differ on Ascend, "
		.. "and mentions in messages, are listed for a human."),
	triggers = { "CUDA_", "NCCL_", "CUBLAS_" },
	run = function(ctx)
		local entry = cuda.env_table(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			refs.report_all(ctx, cuda.env_python(ctx, path, entry), "fix")
		end
		for _i, path in ipairs(ctx.files("%.sh$")) do
			refs.report_all(ctx, cuda.env_shell(ctx, path, entry), "fix")
		end
	end,
}
