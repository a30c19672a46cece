-- assess.jit_script: TorchScript scripting, which automatic migration switches off.

local refs = require("refs")
local blockers = require("blockers")

return {
	id = "assess.jit_script",
	phase = "assess",
	title = _("torch.jit.script (conflicts with automatic migration)"),
	severity = "warning",
	category = "jit",
	description = _("Finds torch.jit.script and torch.jit.script_method, as calls or decorators. "
		.. "Automatic migration (transfer_to_npu) disables both: they return the object unscripted, "
		.. "so code that needs a ScriptModule breaks. Projects that rely on scripting should use "
		.. "tool-based migration or remove the scripting."),
	triggers = { { "torch", "jit" } }, -- every way to name torch.jit.script spells out both
	run = function(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			refs.report_all(ctx, blockers.jit_script(ctx, path, refs.aliases(ctx, path)), "survey")
		end
	end,
}
