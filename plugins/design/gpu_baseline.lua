-- design.gpu_baseline: the GPU run the NPU run will be measured against.

local plan = require("plan")
local shape = require("shape")

local FORM = '{"schema": "ferry-bench/1", "label": "gpu", "hardware": "8x A100 80GB", '
	.. '"precision": "bf16", "metrics": {"accuracy": 0.761, "throughput": 2450}}'

return {
	id = "design.gpu_baseline",
	phase = "design",
	title = _("GPU baseline recorded (accuracy, throughput, hardware, precision)"),
	severity = "warning",
	category = "baseline",
	description = _("The acceptance criteria are relative to the GPU baseline, so it must be on "
		.. "record: a `ferry-bench/1` JSON document with label, hardware, precision and the "
		.. "metrics accuracy and throughput, ingested with `ferry ingest bench FILE --label gpu` "
		.. "(see README, \"GPU baseline\"). Warns until one is, or when one lacks a field."),
	run = function(ctx)
		local b = plan.baseline(ctx)
		if not b then
			ctx.report{
				key = "none",
				message = "No GPU baseline is recorded: the accuracy and throughput targets have nothing to be measured against.",
				suggestion = "Run the project on its GPUs, write the result as " .. FORM
					.. " and run `ferry ingest bench FILE --label gpu`.",
			}
			return
		end
		if #b.missing > 0 then
			ctx.report{
				key = "incomplete",
				message = string.format("The GPU baseline (artifact %s) lacks %s%s.", tostring(b.artifact.id),
					table.concat(b.missing, ", "),
					#(b.doc.bad_fields or {}) > 0 and ("; it has " .. shape.listing(b.doc.bad_fields)) or ""),
				suggestion = "Ingest a complete document of the form " .. FORM .. " with `ferry ingest bench FILE --label gpu`.",
			}
			return
		end
		local m = b.metrics
		local target = ""
		local pct = tonumber(ctx.config("throughput.target_pct") or "")
		if pct then
			target = string.format(" With the throughput target of %g %%, the NPU run must reach %g.", pct, m.throughput * pct / 100)
		end
		ctx.metric("baseline_accuracy", m.accuracy)
		ctx.metric("baseline_throughput", m.throughput)
		ctx.report{
			key = "recorded",
			severity = "info",
			message = string.format("GPU baseline recorded (artifact %s, %s): accuracy %g, throughput %g on %s in %s.%s",
				tostring(b.artifact.id), b.doc.label, m.accuracy, m.throughput, b.doc.hardware, b.doc.precision, target),
			suggestion = "Keep the GPU run's exact settings (batch size, precision, data) for the NPU comparison in the tune phase.",
		}
	end,
}
