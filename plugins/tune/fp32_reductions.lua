-- tune.fp32_reductions: gradient communication, attention softmax or cross-entropy in 16 bits.
--
-- Mixed precision keeps the operations that sum many values in FP32: the all_reduce and
-- reduce_scatter of gradients, softmax and cross-entropy (plugins/data/fp32_reductions.json,
-- with sources). Settings that run them in 16 bits instead, each visible in the project:
--   a DDP communication hook that compresses gradients to fp16/bf16 before the all-reduce;
--   an FSDP MixedPrecision whose reduce_dtype is 16-bit, or absent beside a 16-bit param_dtype;
--   Megatron-LM launch flags: --fp16 without --accumulate-allreduce-grads-in-fp32,
--   --grad-reduce-in-bf16, --fp16 without --attention-softmax-in-fp32, and
--   --fp16-lm-cross-entropy.

local project = require("project")
local py = require("py")
local refs = require("refs")
local train = require("train")

-- Whether a flag is passed on the line's code: the exact flag, not one it begins
-- (--fp16 in --fp16-lm-cross-entropy).
local function flag_at(code, flag)
	local from = 1
	while true do
		local s, e = code:find(flag, from, true)
		if not s then return nil end
		local before, after = code:sub(s - 1, s - 1), code:sub(e + 1, e + 1)
		if not before:match("[%w_%-]") and not after:match("[%w_%-]") then return s end
		from = e + 1
	end
end

-- A launch script of Megatron-LM (or MindSpeed): its training arguments are Megatron's.
local function megatron_launch(lines)
	for _i, l in ipairs(lines) do
		if l.code:find("pretrain_", 1, true) or flag_at(l.code, "--micro-batch-size")
			or flag_at(l.code, "--tensor-model-parallel-size") then
			return true
		end
	end
	return false
end

local function launch_flags(ctx, data)
	for _i, path in ipairs(ctx.files("%.sh$")) do
		local lines = refs.shell_lines(ctx, path)
		if megatron_launch(lines) then
			local first = {} -- flag -> {line=, col=}
			for _i, l in ipairs(lines) do
				for _j, e in ipairs(data.megatron) do
					for _k, f in ipairs(e.flags) do
						local col = not first[f] and flag_at(l.code, f)
						if col then first[f] = { line = l.line, col = col } end
					end
					for _k, f in ipairs(e.unless) do
						if not first[f] and flag_at(l.code, f) then first[f] = { line = l.line } end
					end
				end
			end
			for _j, e in ipairs(data.megatron) do
				local at, flag
				for _k, f in ipairs(e.flags) do
					if first[f] and not at then at, flag = first[f], f end
				end
				local cleared = false
				for _k, f in ipairs(e.unless) do cleared = cleared or first[f] ~= nil end
				if at and not cleared then
					ctx.report{
						file = path, line = at.line, col = at.col, end_line = at.line, end_col = at.col + #flag,
						key = e.name .. ":" .. flag,
						message = #e.unless > 0
							and _("The Megatron launch passes `{flag}` without `{unless}`: {what}.",
								{ flag = flag, unless = e.unless[1], what = _(e.what) })
							or _("The Megatron launch passes `{flag}`: {what}.", { flag = flag, what = _(e.what) }),
						suggestion = _("{fix} Seeds 003 §3.5.1: operations that sum many values (gradient all-reduce and reduce-scatter, softmax, cross-entropy) need FP32; on the NPU these are first suspects when the loss drifts from the GPU's.",
							{ fix = _(e.fix) }),
						data = { source = e.source },
					}
				end
			end
		end
	end
end

local function ddp_hooks(ctx, path, map, hooks)
	for _i, c in ipairs(py.method_calls(ctx, path, "register_comm_hook") or {}) do
		for name in c.args.text:gmatch("[%a_][%w_%.]*") do
			local h = hooks[py.expand(map, name)]
			if h then
				ctx.report{
					file = path, node = c.call, key = "hook:" .. name,
					message = _("`{call}` registers `{hook}`: DDP all-reduces the gradients in {dt}.",
						{ call = c.call.text:gsub("%s+", " "), hook = name, dt = h.dtype }),
					suggestion = _("Register no compression hook, so that DDP all-reduces gradients in FP32 (seeds 003 §3.5.1: communication that sums gradients needs FP32); keep it only if the NPU's loss matches the GPU's with it."),
					data = { source = h.source },
				}
				break
			end
		end
	end
end

local function fsdp_precision(ctx, path, map, classes, args_of)
	for _i, c in ipairs(py.calls(ctx, path, classes, map) or {}) do
		local a = args_of(c.call)
		local reduce = a.kw.reduce_dtype and train.dtype(a.kw.reduce_dtype.text, map)
		local param = a.kw.param_dtype and train.dtype(a.kw.param_dtype.text, map)
		local msg
		if reduce == "float16" or reduce == "bfloat16" then
			msg = _("`{call}` sets reduce_dtype to {dt}: FSDP reduce-scatters the gradients in {dt}.",
				{ call = c.func.text, dt = reduce })
		elseif not a.kw.reduce_dtype and not a.splat and (param == "float16" or param == "bfloat16") then
			msg = _("`{call}` sets param_dtype to {dt} without reduce_dtype: FSDP then reduce-scatters the gradients in {dt} too.",
				{ call = c.func.text, dt = param })
		end
		if msg then
			ctx.report{
				file = path, node = c.call, key = "fsdp",
				message = msg,
				suggestion = _("Pass reduce_dtype=torch.float32, so that gradient reduction sums in FP32 (seeds 003 §3.5.1: communication that sums gradients needs FP32)."),
				data = { source = classes[c.name] },
			}
		end
	end
end

return {
	id = "tune.fp32_reductions",
	phase = "tune",
	title = _("Gradient communication, attention softmax or cross-entropy in 16 bits"),
	severity = "warning",
	category = "precision",
	description = _("Mixed precision keeps the operations that sum many values in FP32: the all-reduce and "
		.. "reduce-scatter of gradients, softmax and cross-entropy. Reports a DDP communication hook that "
		.. "compresses gradients to fp16 or bf16, an FSDP MixedPrecision that reduces gradients in 16 bits, "
		.. "and Megatron-LM launch flags that do the same or run the attention softmax or the loss in 16 bits. "
		.. "On the NPU these are first suspects when the loss drifts from the GPU's."),
	triggers = { "compress_hook", "compress_wrapper", "MixedPrecision" },
	run = function(ctx)
		local data = ctx.data("fp32_reductions")
		local hooks, classes = {}, {}
		for _i, h in ipairs(data.hooks) do hooks[h.name] = h end
		for _i, f in ipairs(data.fsdp) do classes[f.name] = f.source end
		for _i, path in ipairs(project.program_files(ctx)) do
			local map = py.aliases(ctx, path) or {}
			ddp_hooks(ctx, path, map, hooks)
			fsdp_precision(ctx, path, map, classes, train.all_call_args(ctx, path))
		end
		launch_flags(ctx, data)
	end,
}
