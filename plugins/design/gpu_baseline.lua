-- design.gpu_baseline: the GPU run the NPU run will be measured against.

local plan = require("plan")
local shape = require("shape")

local FORM = '{"schema": "ferry-bench/1", "label": "gpu", "hardware": "8x A100 80GB", '
	.. '"precision": "bf16", "metrics": {"accuracy": 0.761, "throughput": 2450}}'

return {
	id = "design.gpu_baseline",
	phase = "design",
	evidence = { "bench", "settings" },
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
				message = _("No GPU baseline is recorded: the accuracy and throughput targets have nothing to be measured against."),
				suggestion = _("Run the project on its GPUs, write the result as {form} and run `ferry ingest bench FILE --label gpu`.",
					{ form = FORM }),
			}
			return
		end
		if #b.missing > 0 then
			ctx.report{
				key = "incomplete",
				message = #(b.doc.bad_fields or {}) > 0
					and _("The GPU baseline (artifact {id}) lacks {missing}; it has {bad}.", { id = tostring(b.artifact.id),
						missing = table.concat(b.missing, ", "), bad = shape.listing(b.doc.bad_fields) })
					or _("The GPU baseline (artifact {id}) lacks {missing}.", { id = tostring(b.artifact.id),
						missing = table.concat(b.missing, ", ") }),
				suggestion = _("Ingest a complete document of the form {form} with `ferry ingest bench FILE --label gpu`.", { form = FORM }),
			}
			return
		end
		local m = b.metrics
		local a = { id = tostring(b.artifact.id), label = b.doc.label, accuracy = string.format("%g", m.accuracy),
			throughput = string.format("%g", m.throughput), hardware = b.doc.hardware, precision = b.doc.precision }
		local message
		local pct = tonumber(ctx.config("throughput.target_pct") or "")
		if pct then
			a.pct, a.need = string.format("%g", pct), string.format("%g", m.throughput * pct / 100)
			message = _("GPU baseline recorded (artifact {id}, {label}): accuracy {accuracy}, throughput {throughput} on {hardware} in {precision}. With the throughput target of {pct} %, the NPU run must reach {need}.", a)
		else
			message = _("GPU baseline recorded (artifact {id}, {label}): accuracy {accuracy}, throughput {throughput} on {hardware} in {precision}.", a)
		end
		ctx.metric("baseline_accuracy", m.accuracy)
		ctx.metric("baseline_throughput", m.throughput)
		ctx.report{
			key = "recorded",
			severity = "info",
			message = message,
			suggestion = _("Keep the GPU run's exact settings (batch size, precision, data) for the NPU comparison in the tune phase."),
		}
	end,
}
