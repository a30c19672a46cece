-- tune.mixed_precision: training that runs in float32 only.
--
-- The NPU's matrix units compute float16 and bfloat16 much faster than float32, and 16-bit
-- activations halve memory traffic. The ResNet50 migration guide among the source
-- documents (seed 001, §2.3 on mixed precision training and the §6.2 troubleshooting table:
-- slow NPU training, fourth cause "mixed precision not enabled", fix "check the AMP
-- configuration") makes AMP the first performance setting of an NPU training script.
--
-- Reported once per training file (at its first loss.backward()) when nothing in the whole
-- project chooses a 16-bit mode: no autocast, GradScaler or amp module, no 16-bit cast or
-- dtype, no fp16/bf16 setting in the code, a config file or a launch script (DeepSpeed's
-- "fp16", Megatron's --bf16, accelerate's mixed_precision), and no Lightning Trainer, whose
-- precision is its own setting (assess.lightning). Any of these means the precision was
-- chosen, and a float32-only run may be deliberate.

local project = require("project")
local train = require("train")

return {
	id = "tune.mixed_precision",
	phase = "tune",
	title = _("Training in float32 only"),
	severity = "info",
	category = "performance",
	description = _("The NPU computes float16 and bfloat16 matrix products much faster than float32, and 16-bit "
		.. "activations halve memory traffic; Ascend's migration guides turn on automatic mixed precision "
		.. "first when NPU training is slow. Reports each training loop (loss.backward()) when nothing in "
		.. "the project chooses a 16-bit mode: no autocast, GradScaler or amp module, no 16-bit cast, "
		.. "and no fp16/bf16 setting in the code, its configs or its launch scripts."),
	triggers = { ".backward(" },
	run = function(ctx)
		local steps = {}
		for _i, path in ipairs(project.program_files(ctx)) do
			local s = train.steps(ctx, path)[1]
			if s then steps[#steps + 1] = { file = path, node = s.call } end
		end
		if #steps == 0 or train.sixteen_bit(ctx) then return end
		for _i, s in ipairs(steps) do
			ctx.report{
				file = s.file, node = s.node,
				message = _("`{file}` trains in float32 only: nothing in the project turns on mixed precision (no autocast, GradScaler, 16-bit cast or fp16/bf16 setting).", { file = s.file }),
				suggestion = _("Run the forward pass and the loss under `torch.autocast(device_type=\"npu\", dtype=torch.bfloat16)` (or float16 with `torch.npu.amp.GradScaler` scaling the loss), then compare the loss curve with the float32 run (ferry compare loss) before keeping it."),
				data = { source = "migration guide seed 001, §2.3 (mixed precision training) and §6.2 (slow training: check the AMP configuration); see seed-coverage T48" },
			}
		end
	end,
}
