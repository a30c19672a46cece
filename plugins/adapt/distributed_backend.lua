-- adapt.distributed_backend: the NCCL backend -> HCCL.

local refs = require("refs")
local cuda = require("cuda")

return {
	id = "adapt.distributed_backend",
	phase = "adapt",
	title = _("NCCL backend to HCCL"),
	severity = "warning",
	category = "distributed",
	description = _("Rewrites the backend 'nccl' as 'hccl' wherever the code names it: "
		.. "init_process_group, backend=, argparse defaults and choices, comparisons such as "
		.. "backend == 'nccl' and lists of allowed backends ('cpu:gloo,cuda:nccl' becomes "
		.. "'cpu:gloo,npu:hccl'), dist.is_nccl_available() as is_hccl_available(), and "
		.. "--backend nccl in launch scripts. Messages are never edited. Automatic migration "
		.. "does not rewrite comparisons, so this runs with either strategy."),
	triggers = { "nccl", "NCCL" },
	run = function(ctx)
		for _i, path in ipairs(ctx.files("%.sh$")) do
			refs.report_all(ctx, cuda.backend_shell(ctx, path), "fix")
		end
		for _i, path in ipairs(ctx.python_files()) do
			refs.report_all(ctx, cuda.backend(ctx, path, refs.aliases(ctx, path)), "fix")
		end
	end,
}
