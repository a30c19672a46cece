-- assess.jit_script: TorchScript scripting, which automatic migration switches off.

local refs = require("refs")
local blockers = require("blockers")
local project = require("project")

return {
	id = "assess.jit_script",
	phase = "assess",
	title = _("torch.jit.script (conflicts with automatic migration)"),
	severity = "warning",
	category = "jit",
	description = _("Finds torch.jit.script and torch.jit.script_method, as calls or decorators. "
		.. "Automatic migration (transfer_to_npu) disables both: they return the object unscripted, "
		.. "so code that needs a ScriptModule breaks. Projects that rely on scripting should use "
		.. "tool-based migration or remove the scripting. In test code (under a tests folder, test_*.py, "
		.. "*_test.py, conftest.py) a finding is information only: it adds no effort and does not decide the strategy; "
		.. "so is one that runs only when an option off by default turns it on (`if args.torchscript:` of a store_true option)."),
	triggers = { { "torch", "jit" } }, -- every way to name torch.jit.script spells out both
	run = function(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			local sites = blockers.jit_script(ctx, path, refs.aliases(ctx, path))
			refs.report_all(ctx, project.test_file(path)
				and blockers.as_test_code(sites, _("Under transfer_to_npu the test sees an unscripted object: skip or adapt it on the NPU if it needs a real ScriptModule."))
				or blockers.as_opt_in(ctx, path, sites), "survey")
		end
	end,
}
