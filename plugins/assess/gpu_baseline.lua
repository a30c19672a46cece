-- assess.gpu_baseline: is the GPU run's loss curve recorded, so the NPU run can be compared
-- with it later? (The benchmark document behind the acceptance criteria is design.gpu_baseline.)

return {
	id = "assess.gpu_baseline",
	phase = "assess",
	title = _("GPU loss log recorded (the curve the NPU run is compared with)"),
	severity = "info",
	category = "baseline",
	evidence = { "loss-log" }, -- it reads no code: it judges a new log alone, at its ingest
	description = _("Checks that a loss log from the GPU run is on record (`ferry ingest loss-log`): "
		.. "the tune phase compares the NPU run's loss curve with it. Record it before changing "
		.. "any code. The throughput and accuracy baseline is checked in the design phase."),
	run = function(ctx)
		local logs = #(ctx.artifacts("loss-log") or {})
		ctx.metric("baseline_loss_logs", logs, "artifacts")
		if logs == 0 then
			ctx.report{
				message = _("No loss log from the GPU run has been ingested, so there is no curve to compare the NPU run with."),
				suggestion = _("Before changing code, train on the GPUs, save the log and run `ferry ingest loss-log FILE --label gpu`."),
				key = "loss-log",
			}
		end
	end,
}
