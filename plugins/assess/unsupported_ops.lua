-- assess.unsupported_ops: torch APIs the vendor lists as unsupported or limited on NPU.

local refs = require("refs")
local blockers = require("blockers")

return {
	id = "assess.unsupported_ops",
	phase = "assess",
	title = _("Operators and APIs unsupported or limited on NPU"),
	severity = "error",
	category = "operators",
	description = _("Looks up every torch API the code uses (through aliases such as nn and F) in "
		.. "unsupported_ops.json, the vendor's lists of APIs that do not work on NPU, one per "
		.. "PyTorch version (2.1.0, 2.6.0, 2.7.1, 2.8.0), plus dtype limits such as float64. The "
		.. "project's torch pin chooses the list: its own version's, else the nearest at or below "
		.. "it; with no pin the newest, and each finding says which list judged it and why. Each hit needs a replacement "
		.. "before the model can run on the NPU. float64 on values the code keeps on the host "
		.. "(built on the CPU, numpy, dataset code) is reported as host-side, not affected (info): it never reaches the NPU. "
		.. "A class named only in isinstance or issubclass is not a use. A torch.backends setting on the list "
		.. "(opt_einsum.enabled) is a warning: setting it runs no operator. In test code (under a tests folder, "
		.. "test_*.py, *_test.py, conftest.py) a finding is information only: it adds no effort and does not decide the strategy."),
	-- a file is parsed for this check only when it names one of the listed APIs
	triggers = blockers.op_triggers,
	run = function(ctx)
		local tables = blockers.op_tables(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			refs.report_all(ctx, blockers.unsupported_ops(ctx, path, tables, refs.aliases(ctx, path)), "survey")
		end
	end,
}
