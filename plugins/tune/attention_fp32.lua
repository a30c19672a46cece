-- tune.attention_fp32: a hand-written attention's score×V matmul in float16.
--
-- 003 §3.5.1 (特定计算操作对计算精度的要求): matmuls may run in half precision, but in an
-- attention layer the product of the attention scores (the softmax's output) with V must
-- be computed in FP32 to stay stable, avoid overflow and keep the accumulated error small.
-- Autocast puts matmul on its 16-bit list and casts its inputs down even when they are
-- float32, so a hand-written `softmax(...) @ v` runs in 16 bits unless autocast is off
-- around it. The check runs when the project trains in half precision (a float16 autocast
-- region, else a launch setting) and reports each `@`, torch.matmul or torch.bmm whose
-- left operand is attention probabilities — a softmax (or diffusers' get_attention_scores)
-- directly, or a name assigned from one in the same function, passed on through dropout,
-- masking or a view, never through another product — outside a `with` that turns autocast
-- off and a function decorated to run in FP32.

local py = require("py")
local train = require("train")

local SITES = [[
(binary_operator left: (_) @a operator: "@" right: (_) @b) @site
(call function: (attribute object: (identifier) @mod attribute: (identifier) @fn) arguments: (argument_list . (_) @a . (_) @b)) @site
]]
local FUNCS = "(function_definition body: (block) @body) @def"
local DECORATED = "(decorated_definition (decorator) @dec definition: (function_definition) @def)"
local WITHS = "(with_statement (with_clause) @clause body: (block) @body) @with"
local ASSIGN = "(assignment left: (identifier) @name right: (_) @rhs) @assign"

local MATMULS = { matmul = true, bmm = true }

-- Calls whose result is attention probabilities: a softmax, or diffusers' Attention
-- helper that computes the scores and their softmax (attention_processor.py).
local PRODUCERS = { "softmax", "get_attention_scores" }
-- Methods that pass a tensor on unchanged in value (a view or a copy of it).
local PASS_ON = { view = true, reshape = true, contiguous = true, to = true, type_as = true, float = true, half = true,
	transpose = true, permute = true, flatten = true }

-- Is the expression's outermost operation a producer call (`(q @ k.T).softmax(-1)`,
-- `F.softmax(x, dim=-1)`), not a product of one (`F.softmax(x, -1) @ w`)?
local function produces(text)
	for _i, p in ipairs(PRODUCERS) do
		if text:find("%f[%w_]" .. p .. "%s*%b()%s*$") then return true end
	end
	return false
end

-- The float16 or bfloat16 training of the project: dtype, where (path:line), or nil. A
-- float16 autocast region of a training file, or an autocast partial with float16 in its
-- file, else a launch setting: Lightning's precision "16-mixed"/"bf16-mixed", Megatron's
-- --fp16/--bf16, DeepSpeed's "fp16"/"bf16" blocks. The project's tests do not count.
local SETTINGS = {
	{ pat = "precision%s*=%s*[\"']?16", dtype = "float16" },
	{ pat = "precision%s*=%s*[\"']bf16", dtype = "bfloat16" },
	{ pat = "%-%-fp16%f[^%w%-]", dtype = "float16" },
	{ pat = "%-%-bf16%f[^%w%-]", dtype = "bfloat16" },
	{ pat = "\"fp16\"%s*:%s*{%s*\"enabled\"%s*:%s*true", dtype = "float16" },
	{ pat = "\"bf16\"%s*:%s*{%s*\"enabled\"%s*:%s*true", dtype = "bfloat16" },
}
-- A test of the project: its autocast regions are not how the project trains.
local function is_test(path)
	return path:match("^tests?/") or path:match("/tests?/") or path:match("[^/]*$"):match("^test_") or path:match("_test%.py$")
end

-- An autocast made into a function (timm's `partial(torch.autocast, ..., dtype=amp_dtype)`)
-- in a file that chooses float16 for it: path:line, or nil.
local function float16_partial(ctx, path)
	if not (ctx.find(path, "partial(torch.autocast") or ctx.find(path, "partial(autocast")) or not ctx.find(path, "torch.float16") then
		return nil
	end
	for n, l in ipairs(ctx.lines(path) or {}) do
		if l:find("partial%(%s*[%w_.]*autocast") then return string.format("%s:%d", path, n) end
	end
end

local function half_training(ctx)
	local bf16
	-- every Python file of the project: the training loop rarely mentions softmax
	local other_partial
	for _i, path in ipairs(ctx.files("%.py$")) do
		local partial = not is_test(path) and float16_partial(ctx, path)
		-- a training script's partial decides; one of an inference script only if none does
		if partial and (path:match("[^/]*$"):find("train") or #train.steps(ctx, path) > 0) then return "float16", partial end
		other_partial = other_partial or partial
		if not is_test(path) and ctx.find(path, "autocast") and #train.steps(ctx, path) > 0 then
			local map = py.aliases(ctx, path) or {}
			for _i, r in ipairs(train.autocast(ctx, path, map)) do
				local where = string.format("%s:%d", path, r.call.line)
				if r.dtype == "float16" then return "float16", where end
				if r.dtype == "bfloat16" and not bf16 then bf16 = where end
			end
		end
	end
	for _i, pattern in ipairs({ "%.py$", "%.sh$", "%.ya?ml$", "%.json$" }) do
		for _i, path in ipairs(ctx.files(pattern)) do
			if not is_test(path) and ctx.find(path, "16") then
				for n, l in ipairs(ctx.lines(path) or {}) do
					for _i, st in ipairs(SETTINGS) do
						if l:find(st.pat) then
							local where = string.format("%s:%d", path, n)
							if st.dtype == "float16" then return "float16", where end
							bf16 = bf16 or where
						end
					end
				end
			end
		end
	end
	if other_partial then return "float16", other_partial end
	if bf16 then return "bfloat16", bf16 end
end

-- The innermost node of list (field key) around byte b, or nil.
local function around(list, key, b)
	local best
	for _i, d in ipairs(list) do
		local n = d[key]
		if b >= n.start_byte and b < n.end_byte and (not best or n.start_byte >= best[key].start_byte) then best = d end
	end
	return best
end

-- Does autocast not apply at byte b: inside a `with` that turns it off, or in a function
-- decorated to run in FP32 (custom_fwd(cast_inputs=torch.float32))?
local function fp32_at(withs, decorated, b)
	for _i, w in ipairs(withs) do
		if b >= w.body.start_byte and b < w.body.end_byte and w.clause.text:find("enabled%s*=%s*False") then return true end
	end
	for _i, d in ipairs(decorated) do
		if b >= d.def.start_byte and b < d.def.end_byte and d.dec.text:find("custom_fwd") and d.dec.text:find("float32") then
			return true
		end
	end
	return false
end

-- The name an operand stands for: itself, or the name a view of it is taken from
-- (`attention_probs.view(...)`).
local function operand_name(operand)
	if operand.type == "identifier" then return operand.text end
	local base, method = operand.text:match("^([%a_][%w_]*)%.([%a_][%w_]*)%s*%(")
	if base and PASS_ON[method] then return base end
end

-- Is the operand attention probabilities? Followed back through the assignments of the
-- same function before the use: a name whose latest assignment calls a producer is; one
-- whose latest assignment is computed from the name itself without a product (dropout,
-- masked_fill, a view) is what that name was before.
local function from_softmax(operand, assigns, def, before)
	if operand.type == "call" and produces(operand.text) then return true end
	local name, at = operand_name(operand), before
	if not name then return false end
	for _hop = 1, 8 do
		local last
		for _i, a in ipairs(assigns) do
			if a.name.text == name and a.assign.end_byte <= at and a.assign.start_byte >= def.start_byte
				and (not last or a.assign.start_byte > last.assign.start_byte) then
				last = a
			end
		end
		if not last then return false end
		local rhs = last.rhs.text
		if produces(rhs) then return true end
		if rhs:find("@", 1, true) or rhs:find("matmul", 1, true) or rhs:find("bmm", 1, true) or rhs:find("einsum", 1, true)
			or not rhs:find("%f[%w_]" .. name .. "%f[^%w_]") then
			return false
		end
		at = last.assign.start_byte
	end
	return false
end

return {
	id = "tune.attention_fp32",
	phase = "tune",
	title = _("Attention's score×V matmul in float16"),
	severity = "warning",
	category = "precision",
	description = _("In a project trained in half precision (autocast, Lightning's precision, Megatron's --fp16/--bf16, "
		.. "DeepSpeed's fp16/bf16), reports a hand-written attention whose softmax output is multiplied with V (`@`, "
		.. "torch.matmul, torch.bmm) where autocast is on: autocast runs matmul in 16 bits and casts float32 inputs "
		.. "down, while the migration guide (003 §3.5.1) computes the score×V product in FP32. A warning under "
		.. "float16, whose range overflows; information under bfloat16."),
	triggers = { "softmax", "get_attention_scores" },
	run = function(ctx)
		local dtype, where = half_training(ctx)
		if not dtype then return end
		for _i, path in ipairs(ctx.python_files()) do
			if ctx.find(path, "softmax") or ctx.find(path, "get_attention_scores") then
				local defs = ctx.query(path, FUNCS) or {}
				local assigns = ctx.query(path, ASSIGN) or {}
				local withs = ctx.query(path, WITHS) or {}
				local decorated = ctx.query(path, DECORATED) or {}
				for _i, m in ipairs(ctx.query(path, SITES) or {}) do
					local op = m.fn == nil or (MATMULS[m.fn.text] and m.mod and m.mod.text == "torch")
					local d = op and around(defs, "def", m.site.start_byte)
					if d and not fp32_at(withs, decorated, m.site.start_byte)
						and from_softmax(m.a, assigns, d.def, m.site.start_byte) then
						local a = { site = m.site.text, where = where, a = m.a.text, b = m.b.text }
						ctx.report{
							file = path, node = m.site,
							severity = dtype == "float16" and "warning" or "info",
							message = dtype == "float16"
								and _("`{site}` multiplies the attention's softmax output with V in float16: the project trains under float16 autocast ({where}), which runs matmul in float16 even on float32 inputs, and the migration guide (003 §3.5.1) computes this product in FP32 for stability.", a)
								or _("`{site}` multiplies the attention's softmax output with V in bfloat16: the project trains in bfloat16 ({where}), and the migration guide (003 §3.5.1) computes this product in FP32 in half-precision training to keep the accumulated error small.", a),
							suggestion = _("Compute it with autocast off: `with torch.autocast(device_type=\"npu\", enabled=False): y = {a}.float() @ {b}.float()`, then cast y back to the input's dtype; or replace the hand-written attention with a fused one (F.scaled_dot_product_attention, torch_npu.npu_fusion_attention).", a),
						}
					end
				end
			end
		end
	end,
}
