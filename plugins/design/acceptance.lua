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
		.. "against them. It also states how `ferry compare dump` will judge layer dumps: by the thresholds "
		.. "agreed with the client (`tolerance.dump_atol`, `tolerance.dump_rtol`, as torch.allclose) or, "
		.. "when neither is set, by msprobe's rule, with how to agree thresholds instead."),
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
					message = c.unset or _("No {label} is recorded ({what}), so the tune phase has nothing to meet.", c),
					suggestion = _("Agree it with the client and record it: `ferry config {key} {example}`.", c),
				}
			end
		end
		-- the dump comparison's thresholds: unset is a rule too (msprobe's), so it is said, not warned
		local d = plan.dump_thresholds(ctx)
		local set = _("If the client wants its own criterion for layer dumps, agree it and record it: `ferry config tolerance.dump_atol 1e-5` and `ferry config tolerance.dump_rtol 1e-3` (each element of the NPU's tensor within atol + rtol × |the GPU's element|, as torch.allclose; the one left unset counts as 0).")
		if d.problem then
			ctx.report{
				key = "tolerance.dump",
				message = _("The dump thresholds are malformed: {problem}; `ferry compare dump` refuses to judge by them.", d),
				suggestion = _("Set it again, e.g. `ferry config {key} 1e-5` (an absolute or relative threshold from 0 to 1).", d),
			}
		elseif d.rule == "allclose" then
			ctx.report{
				key = "tolerance.dump", severity = "info",
				message = _("Acceptance criterion recorded: dump thresholds tolerance.dump_atol = {atol}, tolerance.dump_rtol = {rtol}: `ferry compare dump` passes a tensor pair with {text}.",
					{ atol = ctx.config("tolerance.dump_atol") or "0", rtol = ctx.config("tolerance.dump_rtol") or "0", text = d.text }),
				suggestion = _("Agree them with the client in writing; change them with `ferry config tolerance.dump_atol VALUE` and `ferry config tolerance.dump_rtol VALUE` (the change is recorded in the audit chain)."),
			}
		else
			ctx.report{
				key = "tolerance.dump", severity = "info",
				message = _("No dump thresholds are agreed (tolerance.dump_atol, tolerance.dump_rtol), so `ferry compare dump` will judge the layer dumps of the tune phase by {text}.", d),
				suggestion = set,
			}
		end
	end,
}
