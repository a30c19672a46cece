-- tune.loss_scaling: float16 training without loss scaling.
--
-- float16 gradients underflow to zero without a loss scale (GradScaler); bfloat16 has
-- float32's range and needs none. A training file (one with loss.backward()) that trains
-- in float16 — an autocast region whose dtype is float16 (the default of autocast on a
-- GPU or NPU), or a model cast with .half() whose parameters the optimizer gets — is
-- reported when nothing in the project scales the loss: no GradScaler (torch.cuda.amp,
-- torch.npu.amp, torch.amp), no apex amp, and no framework that scales by itself
-- (accelerate, deepspeed, lightning).

local project = require("project")
local py = require("py")
local train = require("train")

local SCALERS = { GradScaler = true, ShardedGradScaler = true, NativeScaler = true,
	NativeScalerWithGradNormCount = true, scale_loss = true }
local FRAMEWORKS = { accelerate = true, deepspeed = true, lightning = true, pytorch_lightning = true }
local WORDS = { "Scaler", "scale_loss", "amp", "accelerate", "deepspeed", "lightning" }

-- Does any file of the project scale the loss (or use a framework that does)?
local function project_scales(ctx)
	for _i, path in ipairs(ctx.files("%.py$")) do
		local text = ctx.read(path)
		local hit = false
		for _i, w in ipairs(WORDS) do
			if text and text:find(w, 1, true) then hit = true break end
		end
		if hit then
			for _i, imp in ipairs(py.imports(ctx, path) or {}) do
				local top = imp.module:match("^[^.]+")
				if FRAMEWORKS[top] or (imp.name and SCALERS[imp.name]) or imp.full == "apex.amp" then return true end
			end
			local map = py.aliases(ctx, path) or {}
			for _i, a in ipairs(py.attributes(ctx, path) or {}) do
				local full = py.expand(map, a.text)
				local last = full:match("([%w_]+)$")
				if SCALERS[last] or full == "apex.amp.initialize" or full == "apex.amp.scale_loss" then return true end
			end
		end
	end
	return false
end

return {
	id = "tune.loss_scaling",
	phase = "tune",
	title = _("float16 training without loss scaling"),
	severity = "warning",
	category = "precision",
	description = _("float16 gradients below about 6e-8 become zero; mixed-precision training therefore "
		.. "multiplies the loss by a scale factor (GradScaler) before backward and divides it out before "
		.. "the optimizer step. Reports float16 autocast regions and .half() models in training files "
		.. "when nothing in the project scales the loss. bfloat16 training is not reported."),
	triggers = { "autocast", ".half(" },
	run = function(ctx)
		local sites = {}
		for _i, path in ipairs(project.program_files(ctx)) do
			if #train.steps(ctx, path) > 0 then
				local map = py.aliases(ctx, path) or {}
				for _i, r in ipairs(train.autocast(ctx, path, map)) do
					if r.dtype == "float16" then
						sites[#sites + 1] = { file = path, node = r.call,
							message = _("`{call}` trains in float16 (the autocast default on the device) but the project never scales the loss, so small gradients underflow to zero.",
								{ call = (r.call.text:gsub("%s+", " ")) }) }
					end
				end
				-- models cast to half whose parameters go to an optimizer
				local owners, half_calls = {}, {}
				for _i, c in ipairs(py.method_calls(ctx, path, { parameters = true, half = true }) or {}) do
					if c.method.text == "parameters" then owners[c.object.text] = true else half_calls[#half_calls + 1] = c end
				end
				local halves = {}
				for _i, m in ipairs(ctx.query(path, "(assignment left: (identifier) @lhs right: (call function: (attribute attribute: (identifier) @h)) @rhs (#eq? @h \"half\"))") or {}) do
					if owners[m.lhs.text] then halves[m.rhs.start_byte] = m.rhs end
				end
				for _i, c in ipairs(half_calls) do
					if owners[c.object.text] and c.args.text:match("^%(%s*%)$") then halves[c.call.start_byte] = c.call end
				end
				-- `model.half().float()` trains in float32
				local undone = next(halves) and train.cast_back(ctx, path, map)
				for _i, n in pairs(halves) do
					if not undone(n) then
						sites[#sites + 1] = { file = path, node = n,
							message = _("The model is cast to float16 with `.half()` and trained, but the project never scales the loss, so small gradients underflow to zero."),
							suggestion = _("Keep the model in FP32 and train under `torch.npu.amp.autocast()` with `torch.npu.amp.GradScaler()` (GradScaler cannot unscale float16 parameters' gradients), or use bfloat16 (`.bfloat16()`), which needs no scaling.")}
					end
				end
			end
		end
		if #sites == 0 or project_scales(ctx) then return end
		for _i, s in ipairs(sites) do
			s.suggestion = s.suggestion or _("Scale the loss: `scaler = torch.npu.amp.GradScaler()`, then `scaler.scale(loss).backward()`, "
				.. "`scaler.step(optimizer)`, `scaler.update()` — or train in bfloat16 (`dtype=torch.bfloat16`), which needs no scaling.")
			ctx.report(s)
		end
	end,
}
