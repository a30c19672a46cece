-- tune.attention_fp32: a hand-written attention's score×V matmul in float16.
--
-- 003 §3.5.1 (特定计算操作对计算精度的要求): matmuls may run in half precision, but in an
-- attention layer the product of the attention scores (the softmax's output) with V must
-- be computed in FP32 to stay stable, avoid overflow and keep the accumulated error small.
-- Autocast puts matmul on its float16 list and casts its inputs down even when they are
-- float32, so under float16 autocast a hand-written `softmax(...) @ v` runs in float16
-- unless autocast is turned off around it. The check runs when the project trains under
-- float16 autocast (an explicit dtype, or autocast's default on a GPU or NPU), and reports
-- each `@`, torch.matmul or torch.bmm whose left operand is a softmax's output — directly,
-- or through a name assigned from it in the same function, possibly passed on through
-- dropout or masking — in a function that does not turn autocast off.

local py = require("py")
local train = require("train")

local SITES = [[
(binary_operator left: (_) @a operator: "@" right: (_) @b) @site
(call function: (attribute object: (identifier) @mod attribute: (identifier) @fn) arguments: (argument_list . (_) @a . (_) @b)) @site
]]
local FUNCS = "(function_definition body: (block) @body) @def"
local ASSIGN = "(assignment left: (identifier) @name right: (_) @rhs) @assign"

local MATMULS = { matmul = true, bmm = true }

-- The first float16 autocast region of a training file: path and node, or nil.
local function float16_training(ctx)
	-- every Python file of the project: the training loop rarely mentions softmax
	for _i, path in ipairs(ctx.files("%.py$")) do
		if ctx.find(path, "autocast") and #train.steps(ctx, path) > 0 then
			local map = py.aliases(ctx, path) or {}
			for _i, r in ipairs(train.autocast(ctx, path, map)) do
				if r.dtype == "float16" then return path, r.call end
			end
		end
	end
end

-- The innermost function around byte b: its definition node, or nil.
local function function_at(defs, b)
	local best
	for _i, d in ipairs(defs) do
		if b >= d.def.start_byte and b < d.def.end_byte and (not best or d.def.start_byte >= best.def.start_byte) then best = d end
	end
	return best
end

-- Is the operand a softmax's output? Followed back through the assignments of the same
-- function before the use: a name whose latest assignment calls softmax is; one whose
-- latest assignment is computed from the name itself (dropout, masked_fill) is what that
-- name was before.
local function from_softmax(operand, assigns, def, before)
	if operand.text:find("softmax", 1, true) then return true end
	if operand.type ~= "identifier" then return false end
	local name, at = operand.text, before
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
		if rhs:find("softmax", 1, true) then return true end
		if not rhs:find("%f[%w_]" .. name .. "%f[^%w_]") then return false end
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
	description = _("In a project trained under float16 autocast, reports a hand-written attention whose softmax "
		.. "output is multiplied with V (`@`, torch.matmul, torch.bmm) where autocast is on: autocast runs matmul in "
		.. "float16 and casts float32 inputs down, while the migration guide (003 §3.5.1) computes the score×V "
		.. "product in FP32 for stability. bfloat16 training is not reported."),
	triggers = { "softmax" },
	run = function(ctx)
		local train_path, region = float16_training(ctx)
		if not train_path then return end
		for _i, path in ipairs(ctx.python_files()) do
			if ctx.find(path, "softmax") then
				local defs = ctx.query(path, FUNCS) or {}
				local assigns = ctx.query(path, ASSIGN) or {}
				for _i, m in ipairs(ctx.query(path, SITES) or {}) do
					local op = m.fn == nil or (MATMULS[m.fn.text] and m.mod and m.mod.text == "torch")
					local d = op and function_at(defs, m.site.start_byte)
					if d and not d.body.text:find("enabled%s*=%s*False")
						and from_softmax(m.a, assigns, d.def, m.site.start_byte) then
						ctx.report{
							file = path, node = m.site,
							message = _("`{site}` multiplies the attention's softmax output with V in float16: the project trains under float16 autocast ({where}), which runs matmul in float16 even on float32 inputs, and the migration guide (003 §3.5.1) computes this product in FP32 for stability.",
								{ site = m.site.text, where = string.format("%s:%d", train_path, region.line) }),
							suggestion = _("Compute it with autocast off: `with torch.autocast(device_type=\"npu\", enabled=False): y = {a}.float() @ {b}.float()`, then cast y back to the input's dtype; or replace the hand-written attention with a fused one (F.scaled_dot_product_attention, torch_npu.npu_fusion_attention).",
								{ a = m.a.text, b = m.b.text }),
						}
					end
				end
			end
		end
	end,
}
