-- design.acceptance: what "done" means, recorded before the migration starts.

local plan = require("plan")

return {
	id = "design.acceptance",
	phase = "design",
	evidence = { "settings" },
	title = _("Acceptance criteria recorded (loss and accuracy tolerance, throughput target)"),
	severity = "warning",
	category = "acceptance",
	description = _("The migration is done when the NPU run matches the GPU baseline within agreed "
		.. "tolerances. This check states the criteria recorded for the engagement (`ferry config "
		.. "tolerance.loss`, `tolerance.accuracy`, `throughput.target_pct`) and warns about each "
		.. "one that is missing or malformed, with the command that sets it. The tune phase measures "
		.. "against them."),
	run = function(ctx)
		for _i, c in ipairs(plan.criteria(ctx)) do
			if c.text then
				ctx.report{
					key = c.key,
					severity = "info",
					message = _("Acceptance criterion recorded: {key} = {value}: {text}.", c),
					suggestion = _("Agree it with the client in writing; change it with `ferry config {key} VALUE` "
						.. "(the change is recorded in the audit chain).", c),
				}
			elseif c.problem then
				ctx.report{
					key = c.key,
					message = _("The {label} is malformed: {problem}.", c),
					suggestion = _("Set it again, e.g. `ferry config {key} {example}` ({what}).", c),
				}
			else
				ctx.report{
					key = c.key,
					message = _("No {label} is recorded ({what}), so the tune phase has nothing to meet.", c),
					suggestion = _("Agree it with the client and record it: `ferry config {key} {example}`.", c),
				}
			end
		end
	end,
}
