-- infer-optimize.acceptance: the NPU benchmark against the GPU baseline and the criteria.
--
-- The design phase sets tolerance.accuracy (accepted absolute drop of the final accuracy)
-- and throughput.target_pct (NPU throughput as a percentage of the GPU's). When the plan
-- takes in inference (design.migration_plan.inference yes, or auto and something points to
-- inference: inference.planned), the newest NPU benchmark of inference (`ferry ingest
-- bench FILE --label npu`) is set against the GPU baseline (plan.baseline); falling short
-- of either criterion is an error, so the phase cannot be signed off (`ferry signoff
-- infer-optimize` runs this check first). Keys carry the NPU benchmark's hash: a waiver
-- covers that measurement, not a later one. When the plan leaves inference out, the
-- criteria are the tune phase's (plan.bench_phases) and this check says so instead of
-- asking for a benchmark.

local plan = require("plan")

return {
	id = "infer-optimize.acceptance",
	phase = "infer-optimize",
	evidence = { "bench", "settings", "onnx", "atc-log" },
	title = _("Acceptance: NPU accuracy and throughput against the GPU baseline"),
	severity = "error",
	category = "performance",
	description = _("When the migration plan takes in inference, holds the newest NPU benchmark of inference to the "
		.. "acceptance criteria: the accuracy may drop at most `tolerance.accuracy` below the GPU baseline's, and "
		.. "the throughput must reach `throughput.target_pct` of it. Either shortfall blocks the sign-off until a "
		.. "newer benchmark meets it or it is waived with a reason. When the plan leaves inference out "
		.. "(`design.migration_plan.inference`), the tune phase holds the criteria and this check says so."),
	run = function(ctx)
		local sc = plan.bench_phases(ctx)
		local set = table.concat(plan.bench_criteria_set(ctx), ", ")
		if not sc.infer and set ~= "" then
			ctx.report{
				key = "not-planned",
				severity = "info",
				message = sc.how == "no"
					and _("Inference is not planned (`design.migration_plan.inference` = no), so this phase does not hold the acceptance criteria ({criteria}): the tune phase measures them on the project's NPU run.", { criteria = set })
					or _("Inference is not planned: nothing points to it (no ONNX export to a file outside test code, no ONNX model, ATC log or inference benchmark ingested, no inference SoC), so this phase does not hold the acceptance criteria ({criteria}): the tune phase measures them on the project's NPU run.", { criteria = set }),
				suggestion = _("If the client wants the model served on the NPU too, plan the inference migration with `ferry config design.migration_plan.inference yes`: this phase then holds the criteria against the NPU's inference benchmarks."),
			}
		end
		plan.hold_bench_criteria(ctx, sc.infer, {
			workload = "inference",
			accuracy = _("Compare the outputs layer by layer (`ferry compare dump`), keep the diverging operators in float32 (ATC --precision_mode=allow_mix_precision or --keep_dtype), measure again and ingest the new benchmark."),
			throughput = _("Tune before sign-off: AOE subgraph then operator tuning on the model, a larger batch (see the sweep), and W8A8 quantization where accuracy allows (infer-optimize.tuning_guidance); ingest the new benchmark."),
		})
	end,
}
