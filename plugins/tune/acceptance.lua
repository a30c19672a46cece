-- tune.acceptance: the loss and dump comparisons against the design phase's tolerances.
--
-- Reads the deciding comparison of each kind recorded by `ferry compare loss|dump` (the
-- audit chain keeps every one, with both inputs' hashes and the verdict against
-- tolerance.loss or the dump thresholds): the latest, unless an older one failed and no
-- later comparison of the same baseline passed (review_comparisons). A failing one is an
-- error, so the tune phase cannot be signed off while it stands, and so is a pass whose
-- mean error exceeds a tolerance.loss tightened since; `ferry signoff tune` runs this
-- check first. Keys carry both inputs' hashes: a waiver covers those two runs, not later
-- ones.

local plan = require("plan")

local function pct(x) return string.format("%.3g %%", (x or 0) * 100) end

-- tolerance.loss as `ferry compare loss` reads it: 0.005 or 0.5%; nil for other text
local function fraction(text)
	local percent = text:match("^(.-)%%$")
	local n = tonumber(percent or text)
	return n and (percent and n / 100 or n)
end

local function rule_text(t)
	if t.rule ~= "allclose" then return _("msprobe's rule") end
	return _("atol {atol}, rtol {rtol}", { atol = string.format("%g", t.atol or 0), rtol = string.format("%g", t.rtol or 0) })
end

local function inputs(c)
	local function one(s) return string.format("%s (sha256 %s)", s.shown or "?", (s.sha256 or "?"):sub(1, 12)) end
	return _("{a} against {b}", { a = one(c.a or {}), b = one(c.b or {}) })
end

-- Why a failing comparison stands though a newer one passed (review_comparisons): the
-- newer one compared other data, or the same runs over less of them; nil when neither.
local function stands_because(c)
	if c.newer_event then
		return _("the newer one (audit event {newer}) compared other data", { newer = c.newer_event })
	end
	if not c.shorter_event then return nil end
	local a = { newer = c.shorter_event, short = c.shorter_reach or 0, reach = c.reach or 0 }
	if c.shorter_by == "last_step" then
		return _("the newer one (audit event {newer}) compared the same runs but reached step {short} only, this one step {reach}", a)
	elseif c.shorter_by == "pairs" then
		return _("the newer one (audit event {newer}) compared the same runs but {short} tensor pairs only, this one {reach}", a)
	end
	return _("the newer one (audit event {newer}) compared the same runs but {short} aligned steps only, this one {reach}", a)
end

-- how the suggestion names a comparison's baseline (A): as the comparison showed it
local function base(c)
	local a = c.a or {}
	return tostring(a.shown or a.label or "A")
end

return {
	id = "tune.acceptance",
	phase = "tune",
	evidence = { "comparisons", "bench", "settings", "onnx", "atc-log" },
	title = _("Acceptance: the latest loss and dump comparisons are within tolerance"),
	severity = "error",
	category = "precision",
	description = _("The design phase fixed what \"done\" means; this check holds the tune phase to it. "
		.. "The latest `ferry compare loss` must be within tolerance.loss and the latest `ferry compare dump` "
		.. "must have no failing tensor pair; a tolerance.loss set with no loss comparison on record is not met either, "
		.. "nor is a tune phase with no loss or dump comparison on record at all. "
		.. "A failing comparison blocks the sign-off until a later "
		.. "comparison passes or the finding is waived with a reason. In a project that trains, or whose plan "
		.. "takes in no inference, the newest NPU benchmark must also meet tolerance.accuracy and "
		.. "throughput.target_pct against the GPU baseline; a project accepted on inference alone meets them "
		.. "in infer-optimize."),
	run = function(ctx)
		local c = ctx.comparisons()
		local loss, dump = c.loss, c.dump
		-- a tolerance the design set but no comparison checked: nothing vouches for it yet
		local set = ctx.config("tolerance.loss")
		if not loss and set and set ~= "" then
			ctx.report{
				key = "loss:none",
				message = _("tolerance.loss is set to {tol}, but no loss comparison is on record to check it.", { tol = set }),
				suggestion = _("Ingest the GPU and the NPU training logs (`ferry ingest loss-log FILE --label gpu|npu`) and run `ferry compare loss gpu npu`; if the engagement trains nothing, waive this with the reason."),
			}
		end
		-- no comparison of any kind: nothing shows that the NPU run agrees with the GPU run,
		-- and the sign-off would vouch for a precision nobody checked (with tolerance.loss
		-- set, the finding above says what it needs: a loss comparison)
		if not loss and not dump and not (set and set ~= "") then
			ctx.report{
				key = "none",
				message = _("No loss comparison and no dump comparison is on record: nothing shows that the NPU run agrees with the GPU run."),
				suggestion = _("Ingest the GPU and the NPU training logs (`ferry ingest loss-log FILE --label gpu|npu`) and run `ferry compare loss gpu npu`, or compare layer dumps of both runs with `ferry compare dump GPU_DUMP NPU_DUMP`; if the engagement trains nothing, waive this with the reason."),
			}
		end
		if loss and loss.verdict == "fail" then
			-- the reasons in the order the verdict weighs them (app/compare_loss.c)
			local why
			if loss.blowup_step and loss.blowup_step_a then
				why = _("B's loss turns NaN/inf at step {step} and stays there (blow-up); so does A's, from step {a}: a baseline that blew up cannot vouch for B",
					{ step = loss.blowup_step, a = loss.blowup_step_a })
			elseif loss.blowup_step then
				why = _("B's loss turns NaN/inf at step {step} and stays there (blow-up)", { step = loss.blowup_step })
			elseif loss.blowup_step_a then
				why = _("A's loss turns NaN/inf at step {step} and stays there: a baseline that blew up cannot vouch for B",
					{ step = loss.blowup_step_a })
			elseif loss.first_nonfinite_step then
				why = loss.nonfinite_steps
					and _("B's loss is NaN/inf at {n} of the steps, first at step {step}",
						{ n = loss.nonfinite_steps, step = loss.first_nonfinite_step })
					or _("B's loss is NaN/inf, first at step {step}", { step = loss.first_nonfinite_step })
			elseif loss.truncated then
				why = loss.final_step_b
					-- cut, not rounded, to a tenth: 89.96 % is not shown as the 90 % needed
					and _("B stops at step {b}, A runs to step {a} ({pct} of A's run covered, at least {need} needed)",
						{ b = loss.final_step_b, a = loss.final_step_a or 0,
							pct = string.format("%.1f%%", math.floor((loss.coverage or 0) * 1000) / 10), need = "90%" })
					or _("B stops long before A")
			elseif (loss.aligned_steps or 0) == 0 then
				why = _("the two logs share no step")
			elseif (loss.mean_rel_err or 0) <= (loss.tolerance or 0) and loss.end_mean_rel_err then
				why = _("mean relative error {err} over the last {n} aligned steps (from step {step}) exceeds the tolerance {tol}: the runs part at the end of training",
					{ err = pct(loss.end_mean_rel_err), n = loss.end_steps or 0, step = loss.end_from_step or 0, tol = pct(loss.tolerance) })
			elseif (loss.mean_rel_err or 0) <= (loss.tolerance or 0) and loss.incomplete then
				why = _("aligned {n} of A's {total} steps ({pct} of A's run): the rest was never compared",
					{ n = loss.aligned_steps, total = loss.a_points or 0, pct = string.format("%.1f%%", (loss.aligned_coverage or 0) * 100) })
			elseif loss.first_exceed_step then
				why = _("mean relative error {err} over {n} aligned steps exceeds the tolerance {tol} (first over it at step {step})",
					{ err = pct(loss.mean_rel_err), n = loss.aligned_steps, tol = pct(loss.tolerance), step = loss.first_exceed_step })
			else
				why = _("mean relative error {err} over {n} aligned steps exceeds the tolerance {tol}",
					{ err = pct(loss.mean_rel_err), n = loss.aligned_steps, tol = pct(loss.tolerance) })
			end
			local a = { event = loss.event or 0, inputs = inputs(loss), why = why, because = stands_because(loss) }
			ctx.report{
				key = "loss:" .. tostring((loss.a or {}).sha256) .. ":" .. tostring((loss.b or {}).sha256),
				message = a.because
					and _("A loss comparison (audit event {event}, {inputs}) fails: {why}; {because}, so this failure stands.", a)
					or _("The latest loss comparison (audit event {event}, {inputs}) fails: {why}.", a),
				-- a standing failure is closed by a pass of its own baseline, never by one of
				-- other data (review_comparisons), so the advice says which
				suggestion = loss.newer_event and loss.blowup_step_a
					and _("A comparison of other data never looked at these runs, and this baseline ({a}) blew up, so no comparison of it can pass: if the GPU run made again has been compared with the NPU run, waive this naming that comparison; otherwise run the GPU baseline again until its loss stays finite, compare it with the NPU run, then waive this.",
						{ a = base(loss) })
					or loss.newer_event
					and _("A comparison of other data never looked at these runs, so only a passing comparison of the same baseline ({a}) closes this finding: find where the runs part (`ferry compare dump` on layer dumps of the first steps), fix it, run the NPU side again and compare it with {a}. If these runs are not the ones to judge (an experiment, the wrong files), waive this with the reason.",
						{ a = base(loss) })
					or loss.blowup_step_a
					and _("Run the GPU baseline again until its loss stays finite (the same seed, data and hyperparameters as the NPU run), ingest its log and compare again; a NaN baseline proves nothing about the NPU run.")
					or _("Find where the runs part with `ferry compare dump` on layer dumps of the first steps (msprobe), fix it and compare again; a passing comparison closes this finding. If the difference is accepted by the client, waive it with the reason."),
			}
		end
		-- a comparison that passed against an older, looser tolerance than the one agreed now
		local now = set and fraction(set)
		if loss and loss.verdict ~= "fail" and now and loss.mean_rel_err and loss.mean_rel_err > now then
			ctx.report{
				key = "loss:stale:" .. tostring((loss.a or {}).sha256) .. ":" .. tostring((loss.b or {}).sha256) .. ":" .. set,
				message = _("The latest loss comparison (audit event {event}, {inputs}) passed against tolerance {old}, but tolerance.loss is now {tol}, and its mean relative error {err} exceeds that.",
					{ event = loss.event or 0, inputs = inputs(loss), old = pct(loss.tolerance or 0), tol = pct(now), err = pct(loss.mean_rel_err) }),
				suggestion = _("Run `ferry compare loss` again, so the runs are judged against the agreed tolerance; if the client accepts the difference, change tolerance.loss back with the reason, or waive this."),
			}
		end
		-- a dump comparison that passed by other thresholds than the ones agreed now (agreed
		-- since, or made stricter): its verdict says nothing about the agreed ones. A pass
		-- by stricter thresholds is a pass by looser ones too (every element within
		-- atol + rtol|A| stays within more).
		if dump and dump.verdict ~= "fail" then
			-- the dump thresholds agreed now, as a comparison records them (compare.c)
			local was, agreed = dump.threshold or { rule = "msprobe" }, plan.dump_thresholds(ctx)
			local stricter = agreed.rule == "allclose" and was.rule == "allclose"
				and ((agreed.atol or 0) < (was.atol or 0) or (agreed.rtol or 0) < (was.rtol or 0))
			if not agreed.problem and (was.rule ~= agreed.rule or stricter) then
				ctx.report{
					key = "dump:stale:" .. tostring((dump.a or {}).sha256) .. ":" .. tostring((dump.b or {}).sha256) .. ":"
						.. rule_text(agreed),
					message = _("The latest dump comparison (audit event {event}, {inputs}) passed by {old}, but the thresholds agreed for the engagement are now {now}: it was not judged by them.",
						{ event = dump.event or 0, inputs = inputs(dump), old = rule_text(was), now = rule_text(agreed) }),
					-- going back to msprobe's rule is unsetting both thresholds, not setting them
					suggestion = was.rule == "msprobe"
						and _("Run `ferry compare dump` again, so the dumps are judged by the agreed thresholds (tolerance.dump_atol, tolerance.dump_rtol); if the client accepts msprobe's rule, unset both with `ferry config --unset tolerance.dump_atol` and `ferry config --unset tolerance.dump_rtol`, or waive this with the client's reason.")
						or _("Run `ferry compare dump` again, so the dumps are judged by the agreed thresholds (tolerance.dump_atol, tolerance.dump_rtol); if the client accepts the earlier ones, set them back with `ferry config`, or waive this with the client's reason."),
				}
			end
		end
		-- a comparison of the same data on both sides passes and proves nothing: with
		-- tolerance.loss agreed, a loss comparison of a log with itself leaves it unchecked
		for _i, c in ipairs({ { kind = "loss", rec = loss }, { kind = "dump", rec = dump } }) do
			if c.rec and c.rec.same_input then
				ctx.report{
					key = c.kind .. ":same:" .. tostring((c.rec.a or {}).sha256),
					severity = (c.kind == "loss" and set and set ~= "") and "error" or "warning",
					-- recorded before "same" was: the same bytes
					message = (c.rec.same or "bytes") == "bytes"
						and _("The latest {kind} comparison (audit event {event}) has the same data on both sides (sha256 {sha}): it says nothing about the NPU run.",
							{ kind = c.kind, event = c.rec.event or 0, sha = tostring((c.rec.a or {}).sha256 or "?"):sub(1, 12) })
						or _("The latest {kind} comparison (audit event {event}) has the same data on both sides, though the files differ (the same {what}): one run's output twice says nothing about the NPU run.",
							{ kind = c.kind, event = c.rec.event or 0, what = c.rec.same == "losses" and _("losses at every step") or _("values in every tensor") }),
					suggestion = _("Compare the NPU run's output with the GPU run's: check which file each label was ingested from (the workbench's artifacts pane, a) and run the comparison again."),
				}
			elseif c.rec and c.rec.b_names == "gpu" then
				-- a second GPU run: the baseline's own spread, not the NPU's agreement
				ctx.report{
					key = c.kind .. ":gpu-b:" .. tostring((c.rec.b or {}).sha256),
					severity = (c.kind == "loss" and set and set ~= "") and "error" or "warning",
					message = _("The latest {kind} comparison (audit event {event}) compares the baseline with {b}, which its label names a GPU run: it measures the GPU's own spread and says nothing about the NPU run.",
						{ kind = c.kind, event = c.rec.event or 0, b = tostring((c.rec.b or {}).shown or (c.rec.b or {}).label or "B") }),
					suggestion = _("Compare the baseline with the NPU run (`ferry compare {kind} gpu npu`); if B is the NPU run, ingest it again under a label that says so.", { kind = c.kind }),
				}
			end
		end
		if dump and dump.verdict == "fail" then
			local why = (dump.pairs or 0) == 0 and _("the two dumps share no tensor name")
				or dump.first_diverging_layer and _("{failed} of {pairs} tensor pairs are outside the thresholds; first diverging layer {layer}",
					{ failed = dump.failed or 0, pairs = dump.pairs, layer = dump.first_diverging_layer })
				or dump.incomplete and dump.first_unchecked and (dump.coverage or 0) >= 0.9
					and _("B lacks {n} of A's tensors that no compared pair comes after or is computed from, first {name}: a divergence there would not show",
						{ n = dump.unchecked or 0, name = dump.first_unchecked })
				or dump.incomplete and _("B holds {pairs} of A's {total} tensors ({pct}): the missing ones were never compared",
					{ pairs = dump.pairs, total = dump.tensors_a or 0, pct = string.format("%.0f%%", (dump.coverage or 0) * 100) })
				or _("{failed} of {pairs} tensor pairs are outside the thresholds", { failed = dump.failed or 0, pairs = dump.pairs })
			local a = { event = dump.event or 0, inputs = inputs(dump), why = why, because = stands_because(dump) }
			ctx.report{
				key = "dump:" .. tostring((dump.a or {}).sha256) .. ":" .. tostring((dump.b or {}).sha256),
				message = a.because
					and _("A dump comparison (audit event {event}, {inputs}) fails: {why}; {because}, so this failure stands.", a)
					or _("The latest dump comparison (audit event {event}, {inputs}) fails: {why}.", a),
				suggestion = dump.newer_event
					and _("A comparison of other data never looked at these dumps, so only a passing comparison of the same baseline ({a}) closes this finding: start from the first diverging layer, fix it, dump the NPU side again and compare it with {a}. If these dumps are not the ones to judge (an experiment, the wrong files), waive this with the reason.",
						{ a = base(dump) })
					or _("Start from the first diverging layer: keep it in float32, check its inputs and the operator's NPU implementation, dump again and compare; a passing comparison closes this finding."),
			}
		end
		-- a passing comparison judged a run of the code as it was: a later change to a file
		-- that run executed (ferry's fix, a hand edit, a revert) leaves the code unjudged
		for _i, kind in ipairs({ "loss", "dump" }) do
			local c = ({ loss = loss, dump = dump })[kind]
			local cc = c and c.verdict ~= "fail" and c.code_changed
			if cc then
				local a = { event = c.event or 0, inputs = inputs(c), checkpoint = (cc.commit or "?"):sub(1, 12),
					subject = cc.message or "", files = table.concat(cc.files or {}, ", "),
					more = (cc.count or 0) > #(cc.files or {}) and _(" and others") or "" }
				ctx.report{
					key = "code:" .. kind .. ":" .. tostring((c.b or {}).sha256) .. ":" .. tostring(cc.commit),
					message = kind == "loss"
						and _("The latest loss comparison (audit event {event}, {inputs}) passed on a run of older code: checkpoint {checkpoint} (\"{subject}\") changed {files}{more} afterwards, so the code as it is now was never judged.", a)
						or _("The latest dump comparison (audit event {event}, {inputs}) passed on a run of older code: checkpoint {checkpoint} (\"{subject}\") changed {files}{more} afterwards, so the code as it is now was never judged.", a),
					suggestion = _("Run the NPU side again with the current code, ingest the new output and compare again; if the change cannot alter the run (a comment, a log message), waive this with the reason."),
				}
			end
		end
		-- the accuracy and throughput criteria, where the migration plan says they are
		-- measured (plan.bench_phases): here in a project that trains, on its trained model's
		-- accuracy and its training throughput, and in one whose plan takes in no inference,
		-- on its NPU run; a project accepted on inference alone leaves them to infer-optimize
		local sc = plan.bench_phases(ctx)
		plan.hold_bench_criteria(ctx, sc.tune, {
			workload = "training",
			accuracy = sc.trains
				and _("Find where the runs part: compare the loss curves (`ferry compare loss`) and layer dumps of the first steps (`ferry compare dump`), keep norms, softmax and the loss in float32 (tune.fp32_layers), train again and ingest the new benchmark.")
				or _("Find where the NPU run parts from the GPU run: compare layer dumps of both on the same inputs (`ferry compare dump`), keep norms, softmax and reductions in float32 (tune.fp32_layers), run again and ingest the new benchmark."),
			throughput = sc.trains
				and _("Tune the training step before sign-off: profile it (scripts/npu_profile.py, then `ferry ingest profile`), use the fused optimizer and operators (tune.fused_optimizer, tune.fused_apis), remove host syncs in the loop and fix the DataLoader settings (tune.dataloader); measure again and ingest the new benchmark.")
				or _("Tune the NPU run before sign-off: profile it (`ferry ingest profile`), use the fused operators (tune.fused_apis), remove host syncs in the loop and fix the DataLoader settings (tune.dataloader); measure again and ingest the new benchmark."),
		})
	end,
}
