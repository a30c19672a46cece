-- assess.distributed_backend: the NCCL backend in process-group setup and checks.

local refs = require("refs")
local cuda = require("cuda")

return {
	id = "assess.distributed_backend",
	phase = "assess",
	title = _("NCCL distributed backend"),
	severity = "warning",
	category = "distributed",
	description = _("Finds the NCCL backend wherever the code names it: init_process_group(backend='nccl'), "
		.. "argparse defaults, --backend nccl in launch scripts, comparisons such as backend == 'nccl', lists of allowed backends, "
		.. "dist.is_nccl_available() and Backend.NCCL. Ascend uses HCCL. Automatic migration "
		.. "rewrites the backend argument but not string comparisons, which must be edited."),
	triggers = { "nccl", "NCCL" },
	run = function(ctx)
		for _i, path in ipairs(ctx.files("%.sh$")) do
			refs.report_all(ctx, cuda.backend_shell(ctx, path), "survey")
		end
		for _i, path in ipairs(ctx.python_files()) do
			refs.report_all(ctx, cuda.backend(ctx, path, refs.aliases(ctx, path)), "survey")
		end
	end,
}
