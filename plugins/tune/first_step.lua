-- tune.first_step: the first step of the client's own model on one NPU.
--
-- Judges the results of scripts/first_step.py (written by tune.evidence_scripts, ingested
-- with `ferry ingest first-step first_step.json`): seed 000 §4.2's "minimal viable
-- migration" — the model built on the CPU, one forward pass on the CPU and on the NPU with
-- the same weights and input, their largest absolute difference under 1e-3 (and, here,
-- the same relative to the output's scale, with msprobe's cosine of at least 0.99), then
-- one training step on both, loss and gradients compared. Per model, the newest result on
-- an NPU is judged; a CPU run or another model's result never replaces it. The verdict is
-- ferry's own, from the recorded figures, not the script's "ok": a step missing, failed or
-- without its figures is a failure, as is an output of zeros (nothing was compared). The
-- script turns torch_npu's HF32 switches off and records it ("hf32"); a difference with
-- HF32 on, or in a result that does not record it, may be HF32's rounding, and the verdict
-- says so (plugins/data/hf32.json).

local LIMIT = 1e-3 -- seed 000 §4.2: max |CPU − NPU| < 1e-3; here also relative to the output's scale
local COSINE = 0.99 -- msprobe's pass criterion for a tensor (tune-and-inference-formats §1.5)

-- The steps a passing result records, in order; "import torch_npu" only on the NPU, "load
-- checkpoint" only when trained weights were given.
local STEPS = { "import torch", "import torch_npu", "build", "load checkpoint", "reference forward", "device forward", "compare", "training step" }

-- What to do when a step failed.
local STEP_ADVICE = {
	["import torch"] = N_("Run the script with the Python the training job uses, in which torch is installed."),
	["import torch_npu"] = N_("Install the torch_npu build that matches torch and the CANN release (version matrix), source set_env.sh before Python starts, and check that the host sees its cards (`ferry ingest env-probe` with the probe's --smoke)."),
	build = N_("The model could not be built: check --model (MODULE:FACTORY, importable from the project's root) and the --kwargs the factory needs."),
	["load checkpoint"] = N_("The checkpoint does not fit the model the factory builds: give the --kwargs of the configuration it was trained with, and a file holding the state_dict (or a dict with it under \"state_dict\" or \"model\")."),
	["reference forward"] = N_("The model fails on the CPU too, so the input does not fit it: give the shape of one real batch with --input, or a saved batch with --input-file (a tuple of positional arguments or a dict of keyword arguments)."),
	["device forward"] = N_("The forward pass fails on the NPU only: save the script's output and `ferry ingest run-log` it for the cause (an operator without an NPU kernel, a dtype the NPU does not take); rerun with ASCEND_LAUNCH_BLOCKING=1 so the error names the operator."),
	compare = N_("The NPU's output differs from the CPU's: first rule out randomness in the forward pass (dropout or noise outside eval mode, random masks), then dump both runs with msprobe (scripts/msprobe_config.json) and `ferry compare dump` them to find the first layer that diverges."),
	["training step"] = N_("The backward pass or the update failed on the NPU, or its loss or gradients differ from the CPU's: ingest the script's output as a run-log for the cause; with AMP, check the loss scaling (tune.amp); dump the backward pass with msprobe to find the layer."),
	zero = N_("Load trained weights with --checkpoint (or give a batch that produces output): a comparison of zeros shows nothing about the NPU."),
}

local function num(x) return string.format("%.2e", tonumber(x) or 0) end
local function finite(x) x = tonumber(x) return x ~= nil and x == x and x ~= math.huge and x ~= -math.huge end

-- Why the comparison step fails by its figures, and the advice's key, or nil.
local function compare_failure(c)
	local bad = tonumber(c.nonfinite)
	if bad == nil or not finite(c.max_abs_diff) or not finite(c.cosine) or not finite(c.reference_scale) then
		return _("the result lacks the comparison's figures (written by an older scripts/first_step.py or edited): run the current script"), "compare"
	elseif bad > 0 then
		return _("{n} output value(s) are NaN or infinite", { n = bad }), "compare"
	elseif tonumber(c.reference_scale) == 0 then
		return _("the CPU's output is all zeros, so nothing was compared"), "zero"
	end
	local diff, rel, cos = tonumber(c.max_abs_diff), tonumber(c.max_abs_diff) / tonumber(c.reference_scale), tonumber(c.cosine)
	if diff >= LIMIT then
		return _("the outputs differ by {diff}, the limit is {limit}", { diff = num(diff), limit = num(LIMIT) }), "compare", true
	elseif rel >= LIMIT then
		return _("the outputs differ by {diff}, {rel} of their largest value {scale} (limit {limit})", { diff = num(diff), rel = num(rel), scale = num(c.reference_scale), limit = num(LIMIT) }), "compare", true
	elseif cos < COSINE then
		return _("the outputs' cosine similarity is {cos}, under {limit}", { cos = string.format("%.6f", cos), limit = tostring(COSINE) }), "compare", true
	end
end

-- Why the training step fails by its figures, or nil; true when the CPU's and the device's
-- figures differ (rather than being lost or not finite).
local function training_failure(t)
	local loss, ref, d = tonumber(t.loss), tonumber(t.loss_cpu), tonumber(t.loss_abs_diff)
	if not finite(loss) then return _("the training step's loss is not a finite number") end
	if (tonumber(t.nonfinite_grads) or 1) > 0 then
		return _("{n} gradient value(s) are NaN or infinite (or their count is missing)", { n = tostring(t.nonfinite_grads or "?") })
	end
	if not finite(ref) or not finite(d) or not finite(t.grad_cosine) then
		return _("the result lacks the training step's CPU figures (written by an older scripts/first_step.py or edited): run the current script")
	end
	if d >= LIMIT * math.max(1, math.abs(ref)) then
		return _("the loss is {loss} on the device and {ref} on the CPU", { loss = num(loss), ref = num(ref) }), true
	end
	if tonumber(t.grad_cosine) < COSINE then
		return _("the gradients' cosine similarity with the CPU's is {cos}, under {limit}", { cos = string.format("%.6f", tonumber(t.grad_cosine)), limit = tostring(COSINE) }), true
	end
end

-- The first step that did not pass, the reason in ferry's words, the advice's key and
-- whether the CPU's and the NPU's figures differ (what HF32 could explain), or nil.
local function first_failure(doc)
	local seen = {}
	for _i, s in ipairs(doc.steps) do
		seen[s.name] = s
		if s.ok ~= true and s.error then
			return s.name, _("{step} failed: {error}", { step = s.name, error = s.error }), s.name
		end
		local why, key, differ
		if s.name == "compare" then
			why, key, differ = compare_failure(s)
		elseif s.name == "training step" then
			why, differ = training_failure(s)
			key = s.name
		elseif s.ok ~= true then
			why, key = _("{step} did not pass", { step = s.name }), s.name
		end
		if why then return s.name, why, key, differ end
	end
	local on_npu = tostring(doc.device):match("^npu") ~= nil
	for _i, name in ipairs(STEPS) do
		local needed = (name ~= "import torch_npu" or on_npu) and (name ~= "load checkpoint" or doc.checkpoint == true)
		if needed and not seen[name] then
			return name, _("the result has no \"{step}\" step (the script stopped early or the file was cut)", { step = name }), name
		end
	end
end

-- Why a difference between the CPU and the NPU may be HF32's rounding rather than a
-- migration defect (plugins/data/hf32.json): a note for the verdict and one for the
-- advice, or nil when the comparison ran in true float32. A result without "hf32" was
-- written by a script that did not turn HF32 off; a switch the script could not turn off
-- (or whose value it could not read back after an error) was on for the comparison.
local function hf32_notes(ctx, doc)
	local entries = ctx.data("hf32").entries
	if type(doc.hf32) ~= "table" then
		local defaults = {}
		for _i, e in ipairs(entries) do
			if e.default == true then
				defaults[#defaults + 1] = _("{switch}, on by default since torch_npu {version}", { switch = e.name, version = e.default_since })
			end
		end
		return _("The result does not record HF32: it was written by a scripts/first_step.py that does not turn HF32 off, and torch_npu computes float32 operators in HF32 where a switch allows it ({defaults}), which alone can exceed the limit.",
				{ defaults = table.concat(defaults, "; ") }),
			_("Replace scripts/first_step.py with the current one (delete it, then `ferry fix --plugin tune.evidence_scripts --yes`) and run it again: it turns HF32 off for the comparison and records that it did, so a difference that remains is not HF32's.")
	end
	local on = {}
	for _i, e in ipairs(entries) do
		local sw = doc.hf32[e.kind]
		if type(sw) == "table" and sw.found == true and sw.during ~= false then on[#on + 1] = e.name end
	end
	if #on == 0 then return nil end
	local switches = table.concat(on, ", ")
	return _("HF32 was on for the comparison ({switches}), so the difference may be HF32's rounding rather than a migration defect.", { switches = switches }),
		_("Run it again with HF32 off: set {switches} = False after importing torch_npu (the script tries to, and its record says the switch stayed on) and compare in true float32 before looking for a defect.", { switches = switches })
end

-- The results to judge: per model, the newest run on an NPU, else the newest run at all.
-- A run on the CPU, or of another model, never replaces an NPU verdict.
local function results_to_judge(ctx)
	local by_model, order = {}, {}
	for _i, a in ipairs(ctx.artifacts("first-step") or {}) do
		local text = ctx.read_artifact(a.id)
		local doc = text and ctx.decode_json(text)
		local r = { artifact = a, doc = type(doc) == "table" and type(doc.steps) == "table" and doc or nil }
		local model = r.doc and tostring(r.doc.model or "?") or ("#" .. tostring(a.id))
		local npu = r.doc and tostring(r.doc.device or ""):match("^npu") ~= nil
		local m = by_model[model]
		if not m then
			m = {}
			by_model[model] = m
			order[#order + 1] = model
		end
		local slot = npu and "npu" or "other"
		if not m[slot] or tonumber(a.id) > tonumber(m[slot].artifact.id) then m[slot] = r end
	end
	local out = {}
	for _i, model in ipairs(order) do
		out[#out + 1] = { model = model, result = by_model[model].npu or by_model[model].other }
	end
	return out
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
		.. "with what to do; a run on another device than the NPU is a warning. A difference found with HF32 on "
		.. "(torch_npu's reduced-precision float32), or by a script that does not turn it off, is said to be "
		.. "possibly HF32's, with how to compare in true float32."),
	run = function(ctx)
		for _i, j in ipairs(results_to_judge(ctx)) do
			local a, doc, model = j.result.artifact, j.result.doc, j.model
			local what = (a.label and a.label ~= "")
				and _("first-step '{label}' (artifact {id})", { label = a.label, id = tostring(a.id) })
				or _("first-step artifact {id}", { id = tostring(a.id) })
			if not doc then
				ctx.report{ key = "unreadable:" .. model, message = _("{what} could not be read: not a first-step result.", { what = what }),
					suggestion = _("Ingest the result again (`ferry ingest first-step first_step.json`).") }
			else
				local device = tostring(doc.device or "?")
				local step, reason, advice_key, differ = first_failure(doc)
				if step then
					local advice = STEP_ADVICE[advice_key]
					local message = _("The first step of {model} on {device} failed at \"{step}\" ({what}): {reason}.",
						{ model = model, device = device, step = step, what = what, reason = reason })
					local suggestion = advice and _(advice) or _("Rerun scripts/first_step.py and read the error it records.")
					local why, rerun
					if differ and device:match("^npu") then why, rerun = hf32_notes(ctx, doc) end
					if why then
						message = _("{verdict} {hf32}", { verdict = message, hf32 = why })
						suggestion = _("{hf32} {advice}", { hf32 = rerun, advice = suggestion })
					end
					ctx.report{ key = "failed:" .. model, message = message, suggestion = suggestion }
				elseif not device:match("^npu") then
					ctx.report{
						key = "not-npu:" .. model, severity = "warning",
						message = _("The first step of {model} ran on {device}, not on an NPU ({what}): it shows that the script builds and runs the model, not that the NPU does.",
							{ model = model, device = device, what = what }),
						suggestion = _("Run it on the NPU host without --device (npu:0 by default) and ingest that result."),
					}
				else
					local c, t = {}, {}
					for _i, s in ipairs(doc.steps) do
						if s.name == "compare" then c = s end
						if s.name == "training step" then t = s end
					end
					ctx.report{
						key = "passed:" .. model, severity = "info",
						message = doc.checkpoint == true
							and _("The first step of {model} with its trained weights passed on {device} ({what}): the forward pass is within {diff} of the CPU's (limit {limit}, cosine {cos}) and the training step's loss and gradients agree with the CPU's.",
								{ model = model, device = device, what = what, diff = num(c.max_abs_diff), limit = num(LIMIT), cos = string.format("%.6f", tonumber(c.cosine) or 0) })
							or _("The first step of {model} with the factory's random weights passed on {device} ({what}): the forward pass is within {diff} of the CPU's (limit {limit}, cosine {cos}) and the training step's loss and gradients agree with the CPU's.",
								{ model = model, device = device, what = what, diff = num(c.max_abs_diff), limit = num(LIMIT), cos = string.format("%.6f", tonumber(c.cosine) or 0) }),
						suggestion = doc.checkpoint ~= true and _("Run it again with --checkpoint and the trained weights: outputs of random weights can agree where trained ones do not.") or nil,
					}
				end
			end
		end
	end,
}
