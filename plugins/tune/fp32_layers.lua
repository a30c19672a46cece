-- tune.fp32_layers: embeddings, the output head and normalisation layers run in 16 bits.
--
-- Mixed precision keeps a model's first and last layers and its normalisation layers in
-- FP32 (plugins/data/fp32_layers.json, with sources). Four ways code defeats that, each
-- visible in the source:
--   such a layer built with a 16-bit dtype= (nn.Embedding(..., dtype=torch.float16));
--   such a layer cast after it was built (self.embed.half(), self.lm_head.to(torch.bfloat16));
--   a whole model cast to 16 bits in a training script, with nothing casting those layers back;
--   a hand-written RMSNorm that squares and averages its input without an FP32 upcast.

local project = require("project")
local py = require("py")
local train = require("train")

local KIND_WORD = {
	embedding = N_("an embedding layer"),
	norm = N_("a normalisation layer"),
	head = N_("the output layer"),
}

local WHY = {
	embedding = N_("the first layer's lookups feed every later layer, and mixed precision keeps embeddings in FP32"),
	norm = N_("normalisation sums squares and variances that lose precision in 16 bits"),
	head = N_("the output layer's logits need FP32's range and precision, even when no softmax follows"),
}

-- Layers of the table by full name, and the output head attribute names.
local function layer_table(ctx)
	local data = ctx.data("fp32_layers")
	local layers, heads = {}, {}
	for _i, e in ipairs(data.entries) do layers[e.name] = e end
	for _i, n in ipairs(data.heads.names) do heads[n] = true end
	return layers, heads, data.heads.source
end

local CAST_METHODS = { half = true, bfloat16 = true, to = true, type = true }

-- A class whose body normalises by the root of the mean of squares.
local function rms_like(body)
	return body:match("rsqrt") and (body:match("pow%(%s*2") or body:match("%*%*%s*2") or body:match("square%("))
end

-- Whether code upcasts to FP32 somewhere in text.
local function upcasts(text)
	return text:match("%.float%(%s*%)") or text:match("float32") or text:match("%.double%(%s*%)")
end

return {
	id = "tune.fp32_layers",
	phase = "tune",
	title = _("Embedding, output or normalisation layer kept in 16-bit precision"),
	severity = "warning",
	category = "precision",
	description = _("Mixed-precision training keeps the first and last layers of a model (embeddings and the "
		.. "output head) and its normalisation layers (LayerNorm, BatchNorm, RMSNorm) in FP32. Reports such a "
		.. "layer built with a 16-bit dtype= or cast with .half()/.to(torch.float16) afterwards, a whole model "
		.. "cast to 16 bits in a training script with nothing casting those layers back, and a hand-written "
		.. "RMSNorm that does not upcast its input. On the NPU these are first suspects when the loss drifts "
		.. "from the GPU's."),
	-- every finding needs a 16-bit dtype or cast, or an rsqrt (a hand-written RMSNorm)
	triggers = { "float16", "bfloat16", ".half(", "torch.half", "rsqrt" },
	run = function(ctx)
		local layers, heads, head_source = layer_table(ctx)
		local built = { ["torch.nn.Linear"] = true } -- the calls that build a layer of the table
		for name in pairs(layers) do built[name] = true end
		local seen = {}
		local function report(path, node, kind, message, suggestion, source)
			local key = path .. ":" .. node.start_byte
			if seen[key] then return end
			seen[key] = true
			ctx.report{ file = path, node = node, message = message, suggestion = suggestion,
				data = { kind = kind, source = source } }
		end
		for _i, path in ipairs(project.program_files(ctx)) do
			local map = py.aliases(ctx, path) or {}
			local args_of
			-- attributes that hold such a layer: self.X = nn.Embedding(...) (kind, source)
			local attrs = {}
			for _i, c in ipairs(py.calls(ctx, path, built, map) or {}) do
				local layer = layers[c.name]
				local is_linear = c.name == "torch.nn.Linear"
				if layer or is_linear then
					args_of = args_of or train.all_call_args(ctx, path)
					local dt = args_of(c.call).kw.dtype
					dt = dt and train.dtype(dt.text, map)
					if layer and (dt == "float16" or dt == "bfloat16") then
						report(path, c.call, layer.kind,
							_("`{call}` builds {what} in {dt}: {why}.", { call = c.func.text, what = _(KIND_WORD[layer.kind]),
								dt = dt, why = _(WHY[layer.kind]) }),
							_("Build it in FP32 (drop dtype=) and let autocast choose the precision of the layers around it."),
							layer.source)
					end
				end
			end
			local assigns = ctx.query(path, "(assignment left: (attribute attribute: (identifier) @a) "
				.. "right: (call function: (_) @f arguments: (argument_list) @args) @rhs)") or {}
			for _i, m in ipairs(assigns) do
				local d = py.dotted(m.f.text)
				d = d and py.expand(map, d)
				if d and layers[d] then
					attrs[m.a.text] = { kind = layers[d].kind, source = layers[d].source }
				elseif d == "torch.nn.Linear" and heads[m.a.text] then
					attrs[m.a.text] = { kind = "head", source = head_source }
					args_of = args_of or train.all_call_args(ctx, path)
					local dt = args_of(m.rhs).kw.dtype
					dt = dt and train.dtype(dt.text, map)
					if dt == "float16" or dt == "bfloat16" then
						report(path, m.rhs, "head",
							_("`{call}` builds {what} in {dt}: {why}.", { call = m.f.text, what = _(KIND_WORD.head),
								dt = dt, why = _(WHY.head) }),
							_("Build it in FP32 (drop dtype=) and let autocast choose the precision of the layers around it."),
							head_source)
					end
				end
			end
			-- a cast undone in the same expression (`.half().float()`) is no cast
			local undone
			local function kept(call)
				undone = undone or train.cast_back(ctx, path, map)
				return not undone(call)
			end
			-- casts of such an attribute after it was built: self.embed.half()
			local q = "(call function: (attribute object: (attribute attribute: (identifier) @a) @obj "
				.. "attribute: (identifier) @m) arguments: (argument_list) @args) @call"
			for _i, m in ipairs(ctx.query(path, q) or {}) do
				local at = attrs[m.a.text] or (heads[m.a.text] and { kind = "head", source = head_source })
				local dt = at and CAST_METHODS[m.m.text] and train.half_cast(m.call.text, map)
				if dt and kept(m.call) then
					report(path, m.call, at.kind,
						_("`{call}` casts {what} to {dt}: {why}.", { call = m.call.text:gsub("%s+", " "),
							what = _(KIND_WORD[at.kind]), dt = dt, why = _(WHY[at.kind]) }),
						_("Leave this layer in FP32: remove the cast, or cast it back with `.float()` after casting the model."),
						at.source)
				end
			end
			-- whole models cast to 16 bits in a training script
			if #train.steps(ctx, path) > 0 then
				-- the method calls below, found in one walk of the tree
				local by_method = { parameters = {}, modules = {}, float = {}, half = {}, bfloat16 = {}, to = {} }
				for _i, c in ipairs(py.method_calls(ctx, path, by_method) or {}) do
					table.insert(by_method[c.method.text], c)
				end
				local owners = {}
				for _i, c in ipairs(by_method.parameters) do owners[c.object.text] = true end
				-- layers cast back: self.embed.float(), or m.float() in a loop over model.modules()
				local restored = false
				local loops = #by_method.modules > 0
				for _i, c in ipairs(by_method.float) do
					local obj = c.object.text
					local last = obj:match("([%w_]+)%s*$") or ""
					if c.args.text:match("^%(%s*%)$") and not owners[obj] and (attrs[last] or heads[last]
						or last:lower():match("norm") or last:lower():match("embed")
						or (loops and obj:match("^[%a_][%w_]*$"))) then
						restored = true
					end
				end
				-- model.half(), and model = Net().half() where model's parameters are trained
				local casts = {}
				for _i, method in ipairs({ "half", "bfloat16", "to" }) do
					for _i, c in ipairs(by_method[method]) do
						if owners[c.object.text] then casts[#casts + 1] = { call = c.call, method = method } end
					end
				end
				local q2 = "(assignment left: (identifier) @lhs right: (call function: (attribute attribute: (identifier) @m) "
					.. "arguments: (argument_list) @args) @rhs)"
				for _i, m in ipairs(ctx.query(path, q2) or {}) do
					if owners[m.lhs.text] then casts[#casts + 1] = { call = m.rhs, method = m.m.text } end
				end
				for _i, c in ipairs(casts) do
					local dt = CAST_METHODS[c.method] and train.half_cast(c.call.text, map)
					if dt and not restored and kept(c.call) then
						report(path, c.call, "model",
							_("`{call}` casts the whole model to {dt}, so its embeddings, output layer and normalisation layers run in {dt} too.",
								{ call = c.call.text:gsub("%s+", " "), dt = dt }),
							_("Keep the weights in FP32 and train under `torch.npu.amp.autocast()`: the embeddings then stay in FP32 and autocast runs normalisation in FP32; compute the output logits in FP32 (`.float()` on the last hidden state, outside autocast). If memory needs 16-bit weights, cast the embedding, output and norm layers back with `.float()` after casting the model."),
							layers["torch.nn.Embedding"].source)
					end
				end
			end
			-- hand-written RMSNorm without an upcast
			for _i, m in ipairs(ctx.query(path, "(class_definition name: (identifier) @n body: (block) @b)") or {}) do
				local body = m.b.text:gsub("#[^\n]*", "")
				if m.n.text:lower():match("rmsnorm") and rms_like(body) and not upcasts(body) then
					report(path, m.n, "norm",
						_("`{name}` computes the mean of squares and its reciprocal root in the input's dtype: under mixed precision that is 16 bits, and the sum loses precision or overflows.",
							{ name = m.n.text }),
						_("Upcast inside forward: `h = x.float()`, normalise `h`, then return `(h * torch.rsqrt(...)).type_as(x) * self.weight`."),
						layers["torch.nn.RMSNorm"].source)
				end
			end
		end
	end,
}
