-- assess.gpu_baseline: is the GPU baseline recorded, so "done" can be measured later?

return {
	id = "assess.gpu_baseline",
	phase = "assess",
	title = "GPU baseline recorded (loss log or benchmark from the GPU run)",
	severity = "info",
	category = "baseline",
	description = "Checks that the GPU baseline is on record: a loss log or a benchmark from the GPU "
		.. "run, ingested with `ferry ingest`. The tune phase compares the NPU run's loss curve "
		.. "and throughput with it; without a baseline there is no acceptance criterion to meet.",
	run = function(ctx)
		local logs = #(ctx.artifacts("loss-log") or {})
		local bench = #(ctx.artifacts("bench") or {})
		ctx.metric("baseline_loss_logs", logs, "artifacts")
		ctx.metric("baseline_benchmarks", bench, "artifacts")
		if logs == 0 then
			ctx.report{
				message = "No loss log from the GPU run has been ingested, so there is no accuracy baseline.",
				suggestion = "Before changing code, train on the GPUs, save the log and run `ferry ingest loss-log FILE --label gpu`.",
				key = "loss-log",
			}
		end
		if bench == 0 then
			ctx.report{
				message = "No GPU benchmark has been ingested, so there is no throughput baseline.",
				suggestion = "Record the GPU throughput (samples/s, hardware, precision) and run `ferry ingest bench FILE --label gpu`.",
				key = "bench",
			}
		end
	end,
}
