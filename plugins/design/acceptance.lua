-- design.acceptance: what "done" means, recorded before the migration starts.

local plan = require("plan")

return {
	id = "design.acceptance",
	phase = "design",
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
					message = string.format("Acceptance criterion recorded: %s = %s: %s.", c.key, c.value, c.text),
					suggestion = string.format("Agree it with the client in writing; change it with `ferry config %s VALUE` "
						.. "(the change is recorded in the audit chain).", c.key),
				}
			elseif c.problem then
				ctx.report{
					key = c.key,
					message = string.format("The %s is malformed: %s.", c.label, c.problem),
					suggestion = string.format("Set it again, e.g. `ferry config %s %s` (%s).", c.key, c.example, c.what),
				}
			else
				ctx.report{
					key = c.key,
					message = string.format("No %s is recorded (%s), so the tune phase has nothing to meet.", c.label, c.what),
					suggestion = string.format("Agree it with the client and record it: `ferry config %s %s`.", c.key, c.example),
				}
			end
		end
	end,
}
