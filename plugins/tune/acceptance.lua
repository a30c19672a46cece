-- tune.acceptance: the loss and dump comparisons against the design phase's tolerances.
--
-- Reads the latest comparison of each kind recorded by `ferry compare loss|dump` (the
-- audit chain keeps every one, with both inputs' hashes and the verdict against
-- tolerance.loss or the dump thresholds). A failing latest comparison is an error, so the
-- tune phase cannot be signed off while it stands; `ferry signoff tune` runs this check
-- first. Keys carry both inputs' hashes: a waiver covers those two runs, not later ones.

local function pct(x) return string.format("%.3g %%", (x or 0) * 100) end

local function inputs(c)
	local function one(s) return string.format("%s (sha256 %s)", s.label or s.arg or "?", (s.sha256 or "?"):sub(1, 12)) end
	return one(c.a or {}) .. " against " .. one(c.b or {})
end

return {
	id = "tune.acceptance",
	phase = "tune",
	title = _("Acceptance: the latest loss and dump comparisons are within tolerance"),
	severity = "error",
	category = "precision",
	description = _("The design phase fixed what \"done\" means; this check holds the tune phase to it. "
		.. "The latest `ferry compare loss` must be within tolerance.loss and the latest `ferry compare dump` "
		.. "must have no failing tensor pair. A failing comparison blocks the sign-off until a later "
		.. "comparison passes or the finding is waived with a reason."),
	run = function(ctx)
		local c = ctx.comparisons()
		local loss, dump = c.loss, c.dump
		if loss and loss.verdict == "fail" then
			local why
			if (loss.aligned_steps or 0) == 0 then
				why = "the two logs share no step"
			else
				why = string.format("mean relative error %s over %d aligned steps exceeds the tolerance %s",
					pct(loss.mean_rel_err), loss.aligned_steps, pct(loss.tolerance))
				if loss.first_exceed_step then why = why .. string.format(" (first over it at step %d)", loss.first_exceed_step) end
			end
			ctx.report{
				key = "loss:" .. tostring((loss.a or {}).sha256) .. ":" .. tostring((loss.b or {}).sha256),
				message = string.format("The latest loss comparison (audit event %d, %s) fails: %s.",
					loss.event or 0, inputs(loss), why),
				suggestion = "Find where the runs part with `ferry compare dump` on layer dumps of the first steps "
					.. "(msprobe), fix it and compare again; a passing comparison closes this finding. If the difference "
					.. "is accepted by the client, waive it with the reason.",
			}
		end
		if dump and dump.verdict == "fail" then
			local why = (dump.pairs or 0) == 0 and "the two dumps share no tensor name"
				or string.format("%d of %d tensor pairs are outside the thresholds%s", dump.failed or 0, dump.pairs,
					dump.first_diverging_layer and ("; first diverging layer " .. dump.first_diverging_layer) or "")
			ctx.report{
				key = "dump:" .. tostring((dump.a or {}).sha256) .. ":" .. tostring((dump.b or {}).sha256),
				message = string.format("The latest dump comparison (audit event %d, %s) fails: %s.",
					dump.event or 0, inputs(dump), why),
				suggestion = "Start from the first diverging layer: keep it in float32, check its inputs and the operator's "
					.. "NPU implementation, dump again and compare; a passing comparison closes this finding.",
			}
		end
	end,
}
