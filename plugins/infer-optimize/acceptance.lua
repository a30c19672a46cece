-- infer-optimize.acceptance: the NPU benchmark against the GPU baseline and the criteria.
--
-- The design phase sets tolerance.accuracy (accepted absolute drop of the final accuracy)
-- and throughput.target_pct (NPU throughput as a percentage of the GPU's). The newest
-- NPU benchmark (`ferry ingest bench FILE --label npu`) is set against the GPU baseline
-- (plan.baseline); falling short of either criterion is an error, so the phase cannot be
-- signed off (`ferry signoff infer-optimize` runs this check first). Keys carry the NPU
-- benchmark's hash: a waiver covers that measurement, not a later one.

local plan = require("plan")

local function fmt(x) return string.format("%g", math.floor(x * 10000 + 0.5) / 10000) end

return {
	id = "infer-optimize.acceptance",
	phase = "infer-optimize",
	title = _("Acceptance: NPU accuracy and throughput against the GPU baseline"),
	severity = "error",
	category = "performance",
	description = _("Holds the newest NPU benchmark to the acceptance criteria: the accuracy may drop at most "
		.. "`tolerance.accuracy` below the GPU baseline's, and the throughput must reach `throughput.target_pct` "
		.. "of it. Either shortfall blocks the sign-off until a newer benchmark meets it or it is waived with a reason."),
	run = function(ctx)
		local base, npu = plan.baseline(ctx), plan.npu_bench(ctx)
		if not base or not npu or base.artifact.id == npu.artifact.id then return end
		local g, n = base.metrics, npu.doc.metrics
		local what = string.format("The NPU benchmark (artifact %s, sha256 %s)", tostring(npu.artifact.id),
			tostring(npu.artifact.sha256 or "?"):sub(1, 12))
		local tol = tonumber(ctx.config("tolerance.accuracy") or "")
		if type(g.accuracy) == "number" and type(n.accuracy) == "number" then
			local drop = g.accuracy - n.accuracy
			ctx.metric("accuracy_drop", drop)
			if tol and drop > tol + 1e-12 then
				ctx.report{
					key = "accuracy:" .. tostring(npu.artifact.sha256),
					message = string.format("%s has accuracy %s, %s below the GPU baseline's %s; the accepted drop "
						.. "(tolerance.accuracy) is %s.", what, fmt(n.accuracy), fmt(drop), fmt(g.accuracy), fmt(tol)),
					suggestion = "Compare the outputs layer by layer (`ferry compare dump`), keep the diverging operators in "
						.. "float32 (ATC --precision_mode=allow_mix_precision or --keep_dtype), measure again and ingest the new benchmark.",
				}
			end
		end
		local pct = tonumber(ctx.config("throughput.target_pct") or "")
		if type(g.throughput) == "number" and g.throughput > 0 and type(n.throughput) == "number" then
			local got = n.throughput / g.throughput * 100
			ctx.metric("throughput_pct", got, "%")
			if pct and got < pct then
				ctx.report{
					key = "throughput:" .. tostring(npu.artifact.sha256),
					message = string.format("%s reaches %s, %.0f %% of the GPU baseline's %s, below the throughput target of %g %%.",
						what, fmt(n.throughput), got, fmt(g.throughput), pct),
					suggestion = "Tune before sign-off: AOE subgraph then operator tuning on the model, a larger batch (see the sweep), "
						.. "and W8A8 quantization where accuracy allows (infer-optimize.tuning_guidance); ingest the new benchmark.",
				}
			end
		end
	end,
}
