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
		local tol = tonumber(ctx.config("tolerance.accuracy") or "")
		local pct = tonumber(ctx.config("throughput.target_pct") or "")
		local base, npu = plan.baseline(ctx), plan.npu_bench(ctx)
		if npu and base and base.artifact.id == npu.artifact.id then base = nil end
		-- a criterion that is set but has nothing to be checked against is not met: the
		-- sign-off would otherwise vouch for a measurement nobody made
		local set = {}
		if tol then set[#set + 1] = "tolerance.accuracy" end
		if pct then set[#set + 1] = "throughput.target_pct" end
		if #set > 0 and (not base or not npu) then
			ctx.report{
				key = "unmeasured:" .. (npu and "baseline" or "npu"),
				message = npu and _("The acceptance criteria ({criteria}) are set, but no GPU baseline benchmark is on record to measure the NPU against.", { criteria = table.concat(set, ", ") })
					or _("The acceptance criteria ({criteria}) are set, but no NPU benchmark is on record to check them.", { criteria = table.concat(set, ", ") }),
				suggestion = npu and _("Ingest the GPU run's benchmark (`ferry ingest bench FILE --label gpu`, ferry-bench/1 with accuracy and throughput); if the criteria do not apply to this engagement, waive this with the reason.")
					or _("Run the benchmark on the NPU and ingest it (`ferry ingest bench FILE --label npu`, ferry-bench/1 with accuracy and throughput); if the criteria do not apply to this engagement, waive this with the reason."),
			}
		end
		if not base or not npu then return end
		local g, n = base.metrics, npu.doc.metrics
		local what = _("The NPU benchmark (artifact {id}, sha256 {sha})", { id = tostring(npu.artifact.id),
			sha = tostring(npu.artifact.sha256 or "?"):sub(1, 12) })
		-- each criterion needs its metric on both sides
		for _i, c in ipairs({ { key = "tolerance.accuracy", on = tol, metric = "accuracy" },
			{ key = "throughput.target_pct", on = pct, metric = "throughput" } }) do
			local side = type(n[c.metric]) ~= "number" and _("the NPU benchmark (artifact {id}, sha256 {sha})",
					{ id = tostring(npu.artifact.id), sha = tostring(npu.artifact.sha256 or "?"):sub(1, 12) })
				or type(g[c.metric]) ~= "number" and _("the GPU baseline (artifact {id})", { id = tostring(base.artifact.id) })
			if c.on and side then
				ctx.report{
					key = "no-" .. c.metric .. ":" .. tostring(npu.artifact.sha256),
					message = _("{criterion} is set, but {side} has no {metric} to check it with.", { criterion = c.key, side = side, metric = c.metric }),
					suggestion = _("Measure it and ingest the benchmark again with metrics.{metric} filled in.", { metric = c.metric }),
				}
			end
		end
		if type(g.accuracy) == "number" and type(n.accuracy) == "number" then
			local drop = g.accuracy - n.accuracy
			ctx.metric("accuracy_drop", drop)
			if tol and drop > tol + 1e-12 then
				ctx.report{
					key = "accuracy:" .. tostring(npu.artifact.sha256),
					message = _("{what} has accuracy {acc}, {drop} below the GPU baseline's {base}; the accepted drop (tolerance.accuracy) is {tol}.",
						{ what = what, acc = fmt(n.accuracy), drop = fmt(drop), base = fmt(g.accuracy), tol = fmt(tol) }),
					suggestion = _("Compare the outputs layer by layer (`ferry compare dump`), keep the diverging operators in float32 (ATC --precision_mode=allow_mix_precision or --keep_dtype), measure again and ingest the new benchmark."),
				}
			end
		end
		if type(g.throughput) == "number" and g.throughput > 0 and type(n.throughput) == "number" then
			local got = n.throughput / g.throughput * 100
			ctx.metric("throughput_pct", got, "%")
			if pct and got < pct then
				ctx.report{
					key = "throughput:" .. tostring(npu.artifact.sha256),
					message = _("{what} reaches {tp}, {pct} % of the GPU baseline's {base}, below the throughput target of {target} %.",
						{ what = what, tp = fmt(n.throughput), pct = string.format("%.0f", got), base = fmt(g.throughput), target = string.format("%g", pct) }),
					suggestion = _("Tune before sign-off: AOE subgraph then operator tuning on the model, a larger batch (see the sweep), and W8A8 quantization where accuracy allows (infer-optimize.tuning_guidance); ingest the new benchmark."),
				}
			end
		end
	end,
}
