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
-- says so (plugins/data/hf32.json). The script runs the training step with dropout off on
-- both sides and repeats the CPU's forward pass and training step with another seed
-- ("randomness", ferry-first-step/4): a difference where the CPU disagrees with itself is
-- said to be the model's randomness, and a training step that differs in a result that
-- does not record dropout (before /4) possibly dropout's masks. A run on another device
-- than an NPU (--device cpu) compares the CPU with itself: a smoke test of the script, a
-- warning whether it passed or not, never NPU evidence and never an error.

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

-- What to do when a smoke test (a run comparing a device with itself) failed, where it
-- differs from STEP_ADVICE; "differ": the two runs disagree.
local SMOKE_ADVICE = {
	["training step"] = N_("The training step fails on the CPU too, so the cause is the model or the input, not the NPU (an output without floating-point tensors, parameters that get no gradient, a loss that is not finite): give a factory and an input the step can train."),
	differ = N_("On one device, with the same weights and input, the two runs should agree: something in the model changes between them (random numbers the script does not seed or turn off, such as the operating system's, the time, a counter). Turn it off for the test, then run the script on the NPU host without --device."),
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

local RANDOMNESS_ADVICE = N_("Turn that randomness off for this test (stochastic depth or drop-path, noise, random masking: often a factory argument, as drop_path_rate=0 in --kwargs), then run the script again.")

-- Why a difference between the two sides may be the model's randomness rather than the
-- NPU: a note for the verdict and one for the advice, or nil. The script turns dropout off
-- and repeats the CPU's forward pass and training step with another seed ("randomness");
-- a repeat that disagrees means randomness the script did not turn off. A result without
-- "randomness" was written by a script that ran the training step with dropout on.
local function randomness_notes(doc, step)
	local r = doc.randomness
	if type(r) ~= "table" then
		if step ~= "training step" then return nil end
		return _("The result does not record whether dropout was off: it was written by a scripts/first_step.py that runs the training step with dropout on, and the two sides draw different dropout masks, which alone can exceed the limit."),
			_("Replace scripts/first_step.py with the current one (delete it, then `ferry fix --plugin tune.evidence_scripts --yes`) and run it again: it turns dropout off for the training step and records that it did.")
	end
	local reproducible = (step == "compare" and r.forward_reproducible) or (step == "training step" and r.step_reproducible)
	if reproducible ~= false then return nil end
	local what = step == "compare" and _("forward pass") or _("training step")
	return _("The CPU's own {what} differs when it runs again with another seed, although the script turns dropout off: the model draws random numbers the script does not turn off, so the difference may be that randomness rather than the NPU's.", { what = what }),
		_(RANDOMNESS_ADVICE)
end

-- A note for a smoke test that passed while its training step changes with the seed: on
-- the NPU, whose random numbers are its own, the comparison would fail for that reason.
local function smoke_randomness(doc)
	local r = type(doc.randomness) == "table" and doc.randomness or {}
	if r.forward_reproducible ~= false and r.step_reproducible ~= false then return nil end
	return _("Its {what} on the CPU differs when it runs again with another seed (the script turns dropout off; something else draws random numbers), and the NPU draws its own random numbers, so on the NPU it would differ for that reason alone.",
			{ what = r.step_reproducible == false and _("training step") or _("forward pass") }),
		_(RANDOMNESS_ADVICE)
end

-- "The training step ran with dropout off..." for a pass whose model has dropout, or nil.
local function dropout_note(doc)
	local r = type(doc.randomness) == "table" and doc.randomness or {}
	local modules, calls = tonumber(r.dropout_modules) or 0, tonumber(r.masks_off) or 0
	if modules + calls == 0 then return nil end
	return _("The training step ran with dropout off on both sides ({modules} dropout module(s) in eval mode, {calls} call(s) of a dropout function without its mask), since the CPU and the NPU draw different random masks.",
		{ modules = tostring(modules), calls = tostring(calls) })
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

-- The verdict followed by each note that applies, the advice preceded by each note's own;
-- notes: a list of {note, advice}, an empty one where a note does not apply.
local function with_notes(message, suggestion, notes)
	for _i, n in ipairs(notes) do
		if n[1] then
			message = _("{verdict} {note}", { verdict = message, note = n[1] })
			suggestion = _("{note} {advice}", { note = n[2], advice = suggestion })
		end
	end
	return message, suggestion
end

-- r: the result judged, {doc=, model=, device=, what=} (what: the artifact as named in a
-- message); f: its first failure, {step=, reason=, key= (the advice's), differ=}.

-- A result on the NPU that did not pass: an error naming the step.
local function report_failed(ctx, r, f)
	local advice = STEP_ADVICE[f.key]
	local message, suggestion = with_notes(
		_("The first step of {model} on {device} failed at \"{step}\" ({what}): {reason}.",
			{ model = r.model, device = r.device, step = f.step, what = r.what, reason = f.reason }),
		advice and _(advice) or _("Rerun scripts/first_step.py and read the error it records."),
		f.differ and { { hf32_notes(ctx, r.doc) }, { randomness_notes(r.doc, f.step) } } or {})
	ctx.report{ key = "failed:" .. r.model, message = message, suggestion = suggestion }
end

-- A run comparing another device (the CPU) with itself that did not pass: a warning, since
-- it tests the script and the model, not the NPU. Its two sides differing is the model's
-- doing, or, in a result that does not record randomness, possibly dropout's.
local function report_smoke_failed(ctx, r, f)
	local advice = f.differ and SMOKE_ADVICE.differ or SMOKE_ADVICE[f.key] or STEP_ADVICE[f.key]
	local message = _("The smoke test of {model} on {device} failed at \"{step}\" ({what}): {reason}. A run on {device} compares the model with itself: it tests the script and the model, not the NPU.",
		{ model = r.model, device = r.device, step = f.step, what = r.what, reason = f.reason })
	local suggestion = advice and _(advice) or _("Rerun scripts/first_step.py and read the error it records.")
	local why, rerun
	if f.differ and type(r.doc.randomness) ~= "table" then why, rerun = randomness_notes(r.doc, f.step) end
	if why then message, suggestion = _("{verdict} {note}", { verdict = message, note = why }), rerun end
	ctx.report{ key = "smoke-failed:" .. r.model, severity = "warning", message = message, suggestion = suggestion }
end

-- A run comparing another device with itself that passed: a warning that it is no NPU evidence.
local function report_smoke_passed(ctx, r)
	local message, suggestion = with_notes(
		_("The first step of {model} ran on {device}, not on an NPU ({what}): a smoke test of the script, which shows that it builds and runs the model, not that the NPU does.",
			{ model = r.model, device = r.device, what = r.what }),
		_("Run it on the NPU host without --device (npu:0 by default) and ingest that result."),
		{ { smoke_randomness(r.doc) } })
	ctx.report{ key = "not-npu:" .. r.model, severity = "warning", message = message, suggestion = suggestion }
end

-- A result on the NPU that passed: an info finding with its figures.
local function report_passed(ctx, r)
	local doc, c = r.doc, {}
	for _i, s in ipairs(doc.steps) do
		if s.name == "compare" then c = s end
	end
	local fields = { model = r.model, device = r.device, what = r.what, diff = num(c.max_abs_diff), limit = num(LIMIT),
		cos = string.format("%.6f", tonumber(c.cosine) or 0) }
	local message = doc.checkpoint == true
		and _("The first step of {model} with its trained weights passed on {device} ({what}): the forward pass is within {diff} of the CPU's (limit {limit}, cosine {cos}) and the training step's loss and gradients agree with the CPU's.", fields)
		or _("The first step of {model} with the factory's random weights passed on {device} ({what}): the forward pass is within {diff} of the CPU's (limit {limit}, cosine {cos}) and the training step's loss and gradients agree with the CPU's.", fields)
	local dropout = dropout_note(doc)
	ctx.report{
		key = "passed:" .. r.model, severity = "info",
		message = dropout and _("{verdict} {note}", { verdict = message, note = dropout }) or message,
		suggestion = doc.checkpoint ~= true and _("Run it again with --checkpoint and the trained weights: outputs of random weights can agree where trained ones do not.") or nil,
	}
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
		.. "under 1e-3), then one training step on both with dropout off, loss and gradients compared. A failed or "
		.. "missing step is an error naming it, with what to do. A run on another device than the NPU compares that "
		.. "device with itself: a smoke test of the script, a warning whether it passed or not, never NPU evidence. "
		.. "A difference found with HF32 on (torch_npu's reduced-precision float32), or by a script that does not "
		.. "turn it off, is said to be possibly HF32's, with how to compare in true float32; one where the CPU "
		.. "disagrees with itself under another seed, or in a training step run with dropout on by an older "
		.. "script, possibly the model's randomness."),
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
				local r = { doc = doc, model = model, device = tostring(doc.device or "?"), what = what }
				local on_npu = r.device:match("^npu") ~= nil
				local step, reason, key, differ = first_failure(doc)
				local f = step and { step = step, reason = reason, key = key, differ = differ }
				if f and on_npu then
					report_failed(ctx, r, f)
				elseif f then
					report_smoke_failed(ctx, r, f)
				elseif not on_npu then
					report_smoke_passed(ctx, r)
				else
					report_passed(ctx, r)
				end
			end
		end
	end,
}
