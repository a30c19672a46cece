-- infer-optimize.acceptance: the NPU benchmark against the GPU baseline and the criteria.
--
-- The design phase sets tolerance.accuracy (accepted absolute drop of the final accuracy)
-- and throughput.target_pct (NPU throughput as a percentage of the GPU's). The newest
-- NPU benchmark (`ferry ingest bench FILE --label npu`) is set against the GPU baseline
-- (plan.baseline); falling short of either criterion is an error, so the phase cannot be
-- signed off (`ferry signoff infer-optimize` runs this check first). Keys carry the NPU
-- benchmark's hash: a waiver covers that measurement, not a later one.

local plan = require("plan")

return {
	id = "infer-optimize.acceptance",
	phase = "infer-optimize",
	evidence = { "bench", "settings" },
	title = _("Acceptance: NPU accuracy and throughput against the GPU baseline"),
	severity = "error",
	category = "performance",
	description = _("Holds the newest NPU benchmark to the acceptance criteria: the accuracy may drop at most "
		.. "`tolerance.accuracy` below the GPU baseline's, and the throughput must reach `throughput.target_pct` "
		.. "of it. Either shortfall blocks the sign-off until a newer benchmark meets it or it is waived with a reason."),
	run = function(ctx)
		plan.bench_acceptance(ctx, {
			workload = "inference",
			accuracy = _("Compare the outputs layer by layer (`ferry compare dump`), keep the diverging operators in float32 (ATC --precision_mode=allow_mix_precision or --keep_dtype), measure again and ingest the new benchmark."),
			throughput = _("Tune before sign-off: AOE subgraph then operator tuning on the model, a larger batch (see the sweep), and W8A8 quantization where accuracy allows (infer-optimize.tuning_guidance); ingest the new benchmark."),
		})
	end,
}
