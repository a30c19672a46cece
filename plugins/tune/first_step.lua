-- tune.first_step: the first step of the client's own model on one NPU.
--
-- Judges the newest result of scripts/first_step.py (written by tune.evidence_scripts,
-- ingested with `ferry ingest first-step first_step.json`): seed 000 §4.2's "minimal
-- viable migration" — the model built on the CPU, one forward pass on the CPU and on the
-- NPU with the same weights and input, their largest absolute difference under 1e-3, then
-- one training step on the NPU. The verdict is ferry's own, from the recorded steps and
-- figures, not the script's "ok": a step missing, failed or not recorded is a failure, a
-- difference at or over the limit or a non-finite value fails the comparison, and a run on
-- another device than the NPU proves nothing about the NPU.

local LIMIT = 1e-3 -- seed 000 §4.2: max |CPU − NPU| < 1e-3

-- The steps a passing result records, in order; "import torch_npu" only on the NPU.
local STEPS = { "import torch", "import torch_npu", "build", "reference forward", "device forward", "compare", "training step" }

-- What to do when a step failed.
local STEP_ADVICE = {
	["import torch"] = N_("Run the script with the Python the training job uses, in which torch is installed."),
	["import torch_npu"] = N_("Install the torch_npu build that matches torch and the CANN release (version matrix), source set_env.sh before Python starts, and check that the host sees its cards (`ferry ingest env-probe` with the probe's --smoke)."),
	build = N_("The model could not be built: check --model (MODULE:FACTORY, importable from the project's root) and the --kwargs the factory needs."),
	["reference forward"] = N_("The model fails on the CPU too, so the input does not fit it: give the shape of one real batch with --input, or a saved batch with --input-file."),
	["device forward"] = N_("The forward pass fails on the NPU only: save the script's output and `ferry ingest run-log` it for the cause (an operator without an NPU kernel, a dtype the NPU does not take); rerun with ASCEND_LAUNCH_BLOCKING=1 so the error names the operator."),
	compare = N_("The NPU's output differs from the CPU's: first rule out randomness in the forward pass (dropout or noise outside eval mode, random masks), then dump both runs with msprobe (scripts/msprobe_config.json) and `ferry compare dump` them to find the first layer that diverges."),
	["training step"] = N_("The backward pass or the update failed on the NPU, or left non-finite gradients: ingest the script's output as a run-log for the cause; with AMP, check the loss scaling (tune.amp)."),
}

local function num(x) return string.format("%.2e", tonumber(x) or 0) end

-- The first step that did not pass, with the reason in ferry's words, or nil.
local function first_failure(doc)
	local seen = {}
	for _i, s in ipairs(doc.steps) do
		seen[s.name] = s
		if s.ok ~= true then
			return s.name, s.error and _("{step} failed: {error}", { step = s.name, error = s.error })
				or _("{step} did not pass", { step = s.name })
		end
		if s.name == "compare" then
			local diff, bad = tonumber(s.max_abs_diff), tonumber(s.nonfinite) or 0
			if bad > 0 then
				return s.name, _("{n} output value(s) are NaN or infinite", { n = bad })
			elseif not diff or diff ~= diff or diff >= LIMIT then
				return s.name, _("the outputs differ by {diff}, the limit is {limit}", { diff = num(diff), limit = num(LIMIT) })
			end
		end
	end
	local on_npu = tostring(doc.device):match("^npu") ~= nil
	for _i, name in ipairs(STEPS) do
		if not seen[name] and (on_npu or name ~= "import torch_npu") then
			return name, _("the result has no \"{step}\" step (the script stopped early or the file was cut)", { step = name })
		end
	end
end

return {
	id = "tune.first_step",
	phase = "tune",
	evidence = { "first-step" },
	title = _("First step of the model on the NPU"),
	severity = "error",
	category = "runtime",
	description = _("Reads the newest result of scripts/first_step.py (`ferry ingest first-step`): the client's model "
		.. "built on the CPU, one forward pass on the CPU and on the NPU compared (largest absolute difference "
		.. "under 1e-3), then one training step on the NPU. A failed or missing step is an error naming it, "
		.. "with what to do; a run on another device than the NPU is a warning."),
	run = function(ctx)
		local newest
		for _i, a in ipairs(ctx.artifacts("first-step") or {}) do
			if not newest or tonumber(a.id) > tonumber(newest.id) then newest = a end
		end
		if not newest then return end
		local what = (newest.label and newest.label ~= "")
			and _("first-step '{label}' (artifact {id})", { label = newest.label, id = tostring(newest.id) })
			or _("first-step artifact {id}", { id = tostring(newest.id) })
		local text, why = ctx.read_artifact(newest.id)
		local doc = text and ctx.decode_json(text)
		if type(doc) ~= "table" or type(doc.steps) ~= "table" then
			ctx.report{ key = "unreadable", message = _("{what} could not be read: {why}.", { what = what, why = tostring(why or "not a first-step result") }),
				suggestion = _("Ingest the result again (`ferry ingest first-step first_step.json`).") }
			return
		end
		local device, model = tostring(doc.device or "?"), tostring(doc.model or "?")
		local step, reason = first_failure(doc)
		if step then
			local advice = STEP_ADVICE[step]
			ctx.report{
				key = "failed",
				message = _("The first step of {model} on {device} failed at \"{step}\" ({what}): {reason}.",
					{ model = model, device = device, step = step, what = what, reason = reason }),
				suggestion = advice and _(advice) or _("Rerun scripts/first_step.py and read the error it records."),
			}
			return
		end
		local figures, loss = {}, nil
		for _i, s in ipairs(doc.steps) do
			if s.name == "compare" then figures = s end
			if s.name == "training step" then loss = s.loss end
		end
		if not device:match("^npu") then
			ctx.report{
				key = "not-npu", severity = "warning",
				message = _("The first step of {model} ran on {device}, not on an NPU ({what}): it shows that the script builds and runs the model, not that the NPU does.",
					{ model = model, device = device, what = what }),
				suggestion = _("Run it on the NPU host without --device (npu:0 by default) and ingest that result."),
			}
			return
		end
		ctx.report{
			key = "passed", severity = "info",
			message = _("The first step of {model} passed on {device} ({what}): the forward pass is within {diff} of the CPU's (limit {limit}) and the training step gave a finite loss ({loss}).",
				{ model = model, device = device, what = what, diff = num(figures.max_abs_diff), limit = num(LIMIT), loss = loss and num(loss) or "?" }),
		}
	end,
}
