-- assess.data_parallel: single-process multi-GPU DataParallel.

local refs = require("refs")
local blockers = require("blockers")

return {
	id = "assess.data_parallel",
	phase = "assess",
	title = _("torch.nn.DataParallel (unsupported on NPU)"),
	severity = "error",
	category = "distributed",
	description = _("Finds torch.nn.DataParallel and torch.nn.parallel.data_parallel. DataParallel is "
		.. "not supported on NPU; multi-device training must use DistributedDataParallel with one "
		.. "process per device (launched with torchrun)."),
	triggers = { "DataParallel", "data_parallel" },
	run = function(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			refs.report_all(ctx, blockers.as_opt_in(ctx, path, blockers.data_parallel(ctx, path, refs.aliases(ctx, path))), "survey")
		end
	end,
}
