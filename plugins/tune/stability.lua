-- tune.stability: a diverging NPU run in a training that clips no gradients.
--
-- When the latest `ferry compare loss` fails because the NPU run's loss blew up, turned
-- NaN/inf or drifted past the tolerance, and nothing in the project clips gradients, the
-- precision-tuning playbook of the source documents applies before any deeper search
-- (seed 003, §3.5.1 1) and 2): gradient clipping with a threshold of 1.0, a learning-rate
-- warm-up over the first 0.1–0.5 % of the steps, and skipping the batches of a loss spike
-- by resuming from the last good checkpoint). A run that only stopped early is not a
-- divergence and is left to tune.acceptance.

local train = require("train")

-- identifiers that set up gradient clipping, in code, configs and launch scripts (torch,
-- torch_npu's fused variant, HF Trainer, DeepSpeed, Megatron's args, mmengine, Lightning,
-- Keras-style optimizers)
local CLIPPING = {}
for _i, n in ipairs({ "clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "clip_grad_norm_fused_",
	"max_grad_norm", "gradient_clipping", "clip_grad", "grad_clip", "gradient_clip_val", "clip_gradients",
	"clipnorm", "clip_norm" }) do
	CLIPPING[n] = true
end

local function pct(x) return string.format("%.3g %%", (x or 0) * 100) end

return {
	id = "tune.stability",
	phase = "tune",
	evidence = { "comparisons" },
	title = _("A diverging NPU run without gradient clipping"),
	severity = "warning",
	category = "precision",
	description = _("When the latest loss comparison fails because the NPU run's loss blew up, turned NaN/inf "
		.. "or drifted from the GPU run's, and nothing in the project clips gradients, the migration guides' "
		.. "stabilising steps come first: clip the gradient norm at 1.0, warm the learning rate up, and skip "
		.. "the batches of a loss spike."),
	run = function(ctx)
		local loss = ctx.comparisons().loss
		if not loss or loss.verdict ~= "fail" then return end
		local what
		if loss.blowup_step then
			what = _("turns NaN/inf at step {step} and stays there", { step = loss.blowup_step })
		elseif loss.first_nonfinite_step then
			what = _("is NaN/inf at some steps, first at step {step}", { step = loss.first_nonfinite_step })
		elseif loss.first_exceed_step and not loss.truncated then
			what = _("drifts from the GPU run's (mean relative error {err}, first over the tolerance at step {step})",
				{ err = pct(loss.mean_rel_err), step = loss.first_exceed_step })
		end
		if not what or train.setting_named(ctx, CLIPPING, "clip-grad") then return end
		ctx.report{
			key = "noclip:" .. tostring((loss.b or {}).sha256),
			message = _("The NPU run's loss {what} (loss comparison, audit event {event}), and nothing in the project clips gradients.",
				{ what = what, event = loss.event or 0 }),
			suggestion = _("Stabilise the run as the migration guides do: clip the gradient norm at 1.0 (`torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)` before `optimizer.step()`; HF `max_grad_norm`, DeepSpeed `gradient_clipping`, Megatron `--clip-grad`), warm the learning rate up over the first 0.1–0.5 % of the steps, and if a spike comes from particular batches, resume from the last good checkpoint without them; then compare again. If it still diverges, find the first diverging layer with `ferry compare dump`."),
			data = { source = "migration guide seed 003, §3.5.1 1) (skip the batches of a loss spike) and 2) (warm-up over the first 0.1-0.5 % of steps; gradient clipping at 1.0); see seed-coverage T18, T19" },
		}
	end,
}
