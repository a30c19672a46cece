-- environment.memory: device memory on the host against the model size (model.params_b).
--
-- Rule of thumb (model states only; activations come on top, hence 20 % headroom):
--   mixed-precision training with Adam: 16 bytes per parameter (bf16/fp16 weights 2 and
--   gradients 2, fp32 master weights 4, Adam moments 8), the figure of the ZeRO paper
--   (Rajbhandari et al., 2020, section 3.1);
--   bf16/fp16 inference: 2 bytes per parameter plus the KV cache and activations.

local ep = require("envprobe")
local design = require("plan")

local TRAIN_BYTES = 16
local INFER_BYTES = 2
local HEADROOM = 1.2
local GIB = 1024 * 1024 * 1024

return {
	id = "environment.memory",
	phase = "environment",
	evidence = { "env-probe", "settings" },
	title = _("Device memory for the model size"),
	severity = "warning",
	category = "memory",
	description = _("Compares the device memory of the probed chips (HBM, or device DDR on 310P "
		.. "cards, minus what was already in use) with the model size set by `ferry config "
		.. "model.params_b`. Rule of thumb: mixed-precision Adam training keeps 16 bytes per "
		.. "parameter of model states (ZeRO paper), inference in bf16 2 bytes per parameter, "
		.. "each with 20 % headroom for activations. Inference hardware (a probed 310P chip, or an "
		.. "inference-only target.soc when the probe names no chip) is sized for inference only."),
	run = function(ctx)
		local p = ep.latest(ctx)
		if not p then return end
		local params_b = ep.config_number(ctx, "model.params_b")
		if not params_b or params_b <= 0 then return end
		local free = {}
		for _i, c in ipairs(p.npu.chips) do
			local total = ep.chip_memory_mb(c)
			if total and c.health == "OK" then
				local used = (c.hbm_total_mb and c.hbm_total_mb > 0) and c.hbm_used_mb or c.memory_used_mb
				free[#free + 1] = (total - (used or 0)) / 1024
			end
		end
		if #free == 0 then return end
		table.sort(free)
		local per_card = free[1] -- the smallest free chip bounds an even split
		local nodes = ep.config_number(ctx, "target.nodes") or 1
		local cards = ep.config_number(ctx, "target.cards") or (#free * nodes)
		local total = per_card * cards
		local train = params_b * 1e9 * TRAIN_BYTES / GIB * HEADROOM
		local infer = params_b * 1e9 * INFER_BYTES / GIB * HEADROOM
		local rule = _("(rule of thumb: {train} bytes per parameter for mixed-precision Adam training, "
			.. "{infer} for bf16 inference, plus 20 % headroom)", { train = TRAIN_BYTES, infer = INFER_BYTES })
		local gb = design.gb_figure
		local plan = _("{cards} card(s) with {gb} GB free each", { cards = cards, gb = gb(per_card) })
		local f = { key = "memory", data = { per_card_gb = per_card, cards = cards } }
		local v = {
			params = string.format(params_b >= 1 and "%.1f" or "%.2g", params_b), infer = gb(infer),
			train = gb(train), total = gb(total), free = gb(per_card), plan = plan, rule = rule,
		}
		-- an inference card is sized for inference only (design.parallel reports a training
		-- project aimed at one). The memory is the probed chips', so they decide: target.soc
		-- only when the probe names no chip (environment.npu reports a host of another chip)
		local inf_soc, named = nil, false
		for _i, c in ipairs(p.npu.chips) do
			if c.name and c.name ~= "" then
				named = true
				inf_soc = inf_soc or design.inference_only(ctx, "Ascend" .. c.name:gsub("^Ascend", ""))
			end
		end
		if not named then inf_soc = design.inference_only(ctx, ctx.config("target.soc")) end
		if inf_soc and infer <= total then
			f.severity = "info"
			v.product = inf_soc.product
			f.message = _("A {params}B-parameter model needs about {infer} GB for bf16 inference; the plan's {plan} give {total} GB "
				.. "on this inference hardware ({product}) {rule}.", v)
			f.suggestion = _("Leave room for the KV cache or activations of the largest batch served; training does not belong on "
				.. "this hardware.")
		elseif infer > total then
			f.severity = "error"
			f.message = _("A {params}B-parameter model needs about {infer} GB even for bf16 inference; the plan's {plan} give "
				.. "{total} GB {rule}.", v)
			f.suggestion = _("Plan at least {n} cards of this size (`ferry config target.cards N`), or quantize (W8A8) for inference.",
				{ n = math.ceil(infer / per_card) })
		elseif train > total then
			f.message = _("Training a {params}B-parameter model needs about {train} GB of model states; the plan's {plan} give "
				.. "{total} GB {rule}.", v)
			f.suggestion = _("Plan at least {n} cards (target.cards), or cut memory: ZeRO-3/FSDP with CPU offload, "
				.. "LoRA or other parameter-efficient tuning, and activation recomputation. Inference alone (about {infer} GB) fits.",
				{ n = math.ceil(train / per_card), infer = v.infer })
		elseif train > per_card then
			f.severity = "info"
			f.message = _("Training a {params}B-parameter model needs about {train} GB of model states: more than one card "
				.. "({free} GB free), but the plan's {plan} give {total} GB {rule}.", v)
			f.suggestion = _("Plain data parallelism keeps a full copy per card and will not fit: shard the states "
				.. "(ZeRO-1/2/3 or FSDP) over at least {n} cards, or split the model (tensor parallelism within the node, "
				.. "pipeline parallelism across nodes); add recomputation if activations do not fit.",
				{ n = math.ceil(train / per_card) })
		else
			f.severity = "info"
			f.message = _("A {params}B-parameter model fits on one card for training: about {train} GB of model states of "
				.. "{free} GB free {rule}.", v)
			f.suggestion = _("Data parallelism across the planned cards works; watch activation memory with large batches "
				.. "(PYTORCH_NPU_ALLOC_CONF=expandable_segments:True reduces fragmentation).")
		end
		ctx.report(f)
	end,
}
