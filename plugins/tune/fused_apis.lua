-- tune.fused_apis: code that one torch_npu fused operator computes in a single step.
--
-- The vendor's analysis tool lists the "affinity APIs" a script could use (seed 004,
-- 亲和API分析), and the profiling advisor recommends fused operators by the operator
-- sequences it sees (plugins/data/affinity_apis.json, with sources). The shapes below are
-- visible in the source, so they can be named before anything is profiled:
--   a hand-written RMSNorm (rsqrt of the mean of squares)        -> npu_rms_norm
--   a rotate_half / rotate_every_two helper for RoPE              -> npu_rotary_mul
--   silu(A) * B (SwiGLU) and gelu(A) * B (GEGLU)                  -> npu_swiglu, npu_geglu
--   GELU, SiLU modules, torch.roll, q @ k.transpose(-2, -1)        -> fast_gelu, contrib
--   a GELU written out with its tanh approximation (0.044715)     -> fast_gelu
--   transpose/permute chained with view/reshape/flatten           -> npu_confusion_transpose
--   the torch_npu.contrib classes (DropPath, Mish, Focus ...)      -> their NPU versions
-- Code that already calls the fused operator (an NPU branch beside the original) is left
-- alone. Nothing is rewritten: each replacement changes the computation's rounding, so it is
-- a tuning step taken after the NPU run matches the GPU baseline, compared again after.
-- Code that runs only on a torch without an API every torch_npu pairs with has (the slow
-- attention of `if self.flash: ... else:`, lib/fallback.lua) never runs on the NPU host and
-- is not reported.

local fallback = require("fallback")
local py = require("py")
local project = require("project")
local words = require("words")

local FUNCS = "(function_definition name: (identifier) @n parameters: (parameters) @p body: (block) @b) @def"
local CLASSES = "(class_definition name: (identifier) @n body: (block) @b) @cls"
-- a multiplication with a call on either side: silu(A) * B, B * gelu(A)
local GATED = [[
((binary_operator left: (call function: (_) @f) @g operator: "*") @m (#match? @f "(silu|gelu)$"))
((binary_operator operator: "*" right: (call function: (_) @f) @g) @m (#match? @f "(silu|gelu)$"))
]]
-- x @ y.transpose(-2, -1), matmul(x, y.transpose(-2, -1)) and the like
local MATMUL = [[
((binary_operator operator: "@" right: (_) @r) @m (#match? @r "(transpose|\\.mT)"))
((call function: (_) @f arguments: (argument_list . (_) . (_) @r .)) @m
  (#match? @f "matmul$") (#match? @r "(transpose|\\.mT)"))
]]

-- a method call on the result of another: x.flatten(2).transpose(1, 2)
local CHAINED = [[
(call function: (attribute object: (_) @obj attribute: (identifier) @m)
 (#any-of? @m "transpose" "permute" "reshape" "view" "flatten")) @c
]]
-- The two halves of a layout change npu_confusion_transpose does in one operator.
local LAYOUT = { transpose = "move", permute = "move", reshape = "shape", view = "shape", flatten = "shape" }

-- Whether a call of method m on obj changes the layout the other way from obj's own last
-- call (a .contiguous() between them allowed): x.view(B, T, h, d).transpose(1, 2).
local function confused(obj, m)
	local inner = obj:gsub("%.%s*contiguous%s*%(%s*%)%s*$", ""):match("%.%s*([%w_]+)%s*%b()%s*$")
	return inner ~= nil and LAYOUT[inner] ~= nil and LAYOUT[inner] ~= LAYOUT[m]
end

-- A GELU written out with the tanh approximation's constant: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
local function tanh_gelu_body(text)
	return text:find("tanh", 1, true) ~= nil and text:find("0.044715", 1, true) ~= nil
end

local GATE_FUNCS = {
	["torch.nn.functional.silu"] = "SwiGLU", ["torch.silu"] = "SwiGLU",
	["torch.nn.functional.gelu"] = "GEGLU",
}

-- The APIs counted once per file (many sites, one decision): original -> what is counted.
local PER_FILE = {
	["torch.nn.functional.gelu"] = true, ["torch.nn.GELU"] = "torch.nn.functional.gelu",
	["torch.nn.SiLU"] = true, ["torch.roll"] = true,
}

local function entry_table(data)
	local t = {}
	for _i, e in ipairs(data("affinity_apis").entries) do t[e.original] = e end
	return t
end

local function contrib_names(data)
	local t = {}
	for _i, e in ipairs(data("affinity_apis").entries) do
		if e.kind == "class" then t[e.original] = e end
	end
	return t
end

local function short(name) return name:match("([%w_]+)$") end

-- The innermost of the matched definitions (FUNCS or CLASSES matches) holding byte b.
local function enclosing(defs, key, b)
	local best
	for _i, m in ipairs(defs) do
		local d = m[key]
		if d.start_byte <= b and b < d.end_byte and (not best or d.start_byte >= best[key].start_byte) then best = m end
	end
	return best
end

-- The ways code takes the mean of a tensor's squares: x.pow(2).mean(, (x ** 2).mean(,
-- x.square().mean(, torch.mean(x ** 2, torch.mean(x.pow(2), torch.mean(x * x.
local MEAN_OF_SQUARES = {
	"pow%(%s*2%s*%)%s*%.mean%(", "%*%*%s*2%s*%)%s*%.mean%(", "square%(%s*%)%s*%.mean%(",
	"mean%(%s*[%w_%.]+%s*%*%*%s*2", "mean%(%s*[%w_%.]+%.pow%(%s*2", "mean%(%s*torch%.square%(",
	"mean%(%s*([%w_]+)%s*%*%s*%1[^%w_]",
}

-- Whether a function body normalises by the reciprocal root of the mean of squares, and
-- takes no other mean (LayerNorm subtracts one; an optimizer averages its moments).
local function rms_body(text)
	if not text:find("rsqrt", 1, true) then return false end
	local means = 0
	for _m in text:gmatch("mean%(") do means = means + 1 end
	if means ~= 1 then return false end
	for _i, pat in ipairs(MEAN_OF_SQUARES) do
		if text:match(pat) then return true end
	end
	return false
end

-- The advice for a hand-written RMSNorm: the fused operator's gamma is the weight, or
-- 1 + weight where the body scales by that (Gemma's unit offset, litgpt's add_unit_offset).
local function rms_advice(text, fused)
	if text:find("1%s*%+%s*self%.weight%f[^%w_]") or text:find("self%.weight%s*%+%s*1%f[^%w_.]") then
		return _("Once the NPU run matches the GPU baseline, return `{fused}(x, 1 + self.weight, epsilon=eps)[0]` on the NPU where the layer scales by 1 + weight (its unit offset), and with `self.weight` where it does not (CANN 7.0.0 or later; keep this code for other devices), then compare the loss again.",
			{ fused = fused })
	end
	return _("Once the NPU run matches the GPU baseline, return `{fused}(x, self.weight, epsilon=eps)[0]` on the NPU (CANN 7.0.0 or later; keep this code for other devices), then compare the loss again.",
		{ fused = fused })
end

-- The RoPE mode of a helper of one tensor returning its halves rotated: cat((-x2, x1))
-- or stack((-x2, x1)), the two parts plain names.
local ROTATED = "%s*%(%s*[%(%[]%s*%-%s*[%w_]+%s*,%s*[%w_]+%s*[%)%]]"

-- A helper taking the tensor and its cos and sin tables (apply_rope(x, cos, sin)) that
-- rotates the halves itself applies the whole embedding: the second value is true.
local function rotation_mode(params, body)
	local n, trig = 0, {}
	for p in params:gmatch("[^,()]+") do
		local name = p:match("^%s*%**([%w_]+)")
		if name and name ~= "self" then
			n = n + 1
			if name:find("cos", 1, true) then trig.cos = true end
			if name:find("sin", 1, true) then trig.sin = true end
		end
	end
	local applies = n == 3 and trig.cos and trig.sin
	if n ~= 1 and not applies then return nil end
	if body:match("cat" .. ROTATED) then return "half", applies end
	if body:match("stack" .. ROTATED) then return "interleave", applies end
	return nil
end

local function transposed(text)
	return text:match("%.transpose%(%s*%-2%s*,%s*%-1%s*%)%s*$") or text:match("%.transpose%(%s*%-1%s*,%s*%-2%s*%)%s*$")
		or text:match("%.mT%s*$")
end

-- Code quoted in a message: on one line, at most 60 bytes.
local function snippet(text)
	local one = text:gsub("%s+", " ")
	return #one <= 60 and one or words.clip(one, 57, "...")
end

local layout_chains, chain_places

-- The names of a file's functions that run in a model's training step: the modules'
-- forward methods and the functions and methods they call by name (forward_features,
-- window_partition, self._attn), over up to three calls. forward_intermediates (feature
-- extraction), a transform's __call__ and code run once are not among them.
local function forward_names(file)
	local hot, defined = {}, {}
	for _i, m in ipairs(file.funcs) do defined[m.n.text] = true end
	hot.forward = defined.forward
	for _round = 1, 3 do
		local grew = false
		for _i, m in ipairs(file.funcs) do
			for called in (hot[m.n.text] and m.b.text or ""):gmatch("([%a_][%w_]*)%s*%(") do
				if defined[called] and not hot[called] then hot[called], grew = true, true end
			end
		end
		if not grew then break end
	end
	return hot
end

-- The layout chains npu_confusion_transpose fuses (a reshape, view or flatten and a
-- transpose or permute, one applied to the other's result: y = transpose(reshape(x))
-- or reshape(transpose(x)), its documented computation) in the file's forward
-- computation: {node=, where=, line=} each, one per chain (x.reshape(...).permute(...)
-- .reshape(...) is one). A chain run once (a checkpoint conversion, a position table
-- built at init, a data transform) costs nothing per step and is not one; nor is a
-- chain that is the transposed operand of a product (`q @ k.reshape(...).transpose(-2, -1)`),
-- whose transpose the product takes in (matmul_transpose, reported on its own).
layout_chains = function(ctx, path, file, operands)
	local hot = forward_names(file)
	local out, by_start = {}, {}
	local function operand(node)
		for _i, r in ipairs(operands) do
			if r.start_byte <= node.start_byte and node.end_byte <= r.end_byte then return true end
		end
		return false
	end
	for _i, m in ipairs(ctx.query(path, CHAINED) or {}) do
		if confused(m.obj.text, m.m.text) and not operand(m.c) then
			local d = enclosing(file.funcs, "def", m.c.start_byte)
			if d and hot[d.n.text] then
				local prev = by_start[m.c.start_byte]
				if not prev or prev.node.end_byte < m.c.end_byte then
					local owner = enclosing(file.classes, "cls", d.def.start_byte)
					local c = { node = m.c, where = owner and (owner.n.text .. "." .. d.n.text) or d.n.text,
						line = m.c.line }
					if prev then
						for k, v in pairs(c) do prev[k] = v end
					else
						by_start[m.c.start_byte] = c
						out[#out + 1] = c
					end
				end
			end
		end
	end
	table.sort(out, function(a, b) return a.node.start_byte < b.node.start_byte end)
	return out
end

-- Where the chains are, for a message: "`Attention.forward` (lines 35, 36)", at most
-- six functions named.
chain_places = function(chains)
	local order, lines = {}, {}
	for _i, c in ipairs(chains) do
		if not lines[c.where] then
			lines[c.where] = {}
			order[#order + 1] = c.where
		end
		table.insert(lines[c.where], tostring(c.line))
	end
	local parts = {}
	for i, w in ipairs(order) do
		if i > 6 then
			parts[#parts + 1] = _("{n} more functions", { n = #order - 6 })
			break
		end
		local ls = lines[w]
		parts[#parts + 1] = #ls == 1 and _("`{name}` (line {lines})", { name = w, lines = ls[1] })
			or _("`{name}` (lines {lines})", { name = w, lines = table.concat(ls, ", ") })
	end
	return words.join(parts)
end

local Check = {}
Check.__index = Check

local function new_check(ctx)
	return setmetatable({ ctx = ctx, e = entry_table(ctx.data), contrib = contrib_names(ctx.data), layout = {} }, Check)
end

function Check:report(path, node, entry, message, suggestion)
	-- code that runs only on a torch older than any torch_npu pairs with needs no tuning
	if node and fallback.unreached(self.ctx, path, node.start_byte) then return end
	self.ctx.report{
		file = path, node = node, message = message, suggestion = suggestion,
		data = { replacement = entry.replacement, source = entry.source },
	}
end

-- What code using the fused operator names: its own name, or torch_npu.contrib when the
-- NPU version has the original's name (Mish, Focus, roll).
local function fused_needle(entry)
	local name = short(entry.replacement)
	if name == short(entry.original) then return "torch_npu.contrib" end
	return name
end

-- Whether the code between bytes lo and hi (the whole file when nil) names needle: an
-- identifier, or for a dotted needle an attribute or import path, so the name in a
-- comment ("# could use npu_matmul_transpose here") or inside a string is no use of it.
local function names_in_code(ctx, path, needle, lo, hi)
	local q = needle:find(".", 1, true)
		and string.format('([(attribute) (dotted_name)] @n (#eq? @n "%s"))', needle)
		or string.format('((identifier) @n (#eq? @n "%s"))', needle)
	for _i, m in ipairs(ctx.query(path, q) or {}) do
		if not lo or (m.n.start_byte >= lo and m.n.end_byte <= hi) then return true end
	end
	return false
end

-- Whether the definition around byte b (the file, without b) already uses the fused operator.
function Check:already(path, file, b, entry)
	local needle = fused_needle(entry)
	if not self.ctx.find(path, needle) then return false end -- the common case, searched in C
	local d = b and (enclosing(file.classes, "cls", b) or enclosing(file.funcs, "def", b))
	local node = d and (d.cls or d.def)
	return names_in_code(self.ctx, path, needle, node and node.start_byte, node and node.end_byte)
end

-- The methods through which a norm module's own name says what computes it.
local NORM_METHODS = { forward = true, _norm = true, __call__ = true }

function Check:rms_norm(path, file, map)
	if not file.torch then return end
	local e = self.e["RMSNorm"]
	local seen = {}
	for _i, m in ipairs(file.funcs) do
		if rms_body(m.b.text) then
			local owner = enclosing(file.classes, "cls", m.def.start_byte)
			local node = owner and owner.n or m.n
			local name = node.text
			if owner and not NORM_METHODS[m.n.text] then name = owner.n.text .. "." .. m.n.text end
			if not seen[node.start_byte] and not self:already(path, file, m.def.start_byte, e) then
				seen[node.start_byte] = true
				self:report(path, node, e,
					_("`{name}` computes RMSNorm by hand (x · rsqrt(mean(x²) + eps) · weight); on the NPU `{fused}` does it in one fused operator.",
						{ name = name, fused = e.replacement }),
					rms_advice(m.b.text, e.replacement))
			end
		end
	end
end

function Check:rotary(path, file)
	local e = self.e["rotate_half RoPE"]
	for _i, m in ipairs(file.funcs) do
		local mode, applies = rotation_mode(m.p.text, m.b.text)
		if mode and not self:already(path, file, m.def.start_byte, e) then
			local args = { name = m.n.text, fused = e.replacement }
			self:report(path, m.n, e,
				applies and _("`{name}` applies rotary position embeddings (RoPE): it rotates the halves of the last dimension and multiplies by cos and sin, which one `{fused}` call does on the NPU.", args)
				or mode == "half"
					and _("`{name}` rotates the two halves of the last dimension for rotary position embeddings (RoPE); `x * cos + {name}(x) * sin` is one `{fused}` call on the NPU.", args)
					or _("`{name}` rotates interleaved pairs for rotary position embeddings (RoPE); `x * cos + {name}(x) * sin` is one `{fused}` call with rotary_mode='interleave' on the NPU.", args),
				_("Where the embedding is applied, call `{fused}(x, cos, sin)` on the NPU (CANN 7.0.RC1 or later; x 3-D or 4-D in float16, bfloat16 or float32; check the shapes it accepts for cos and sin in its documentation), then compare the loss against the GPU baseline.", args))
		end
	end
end

local function fast_gelu_advice()
	return _("fast_gelu does not give GELU's exact values: try it only after the NPU run matches the GPU baseline, on the layers the profile shows to be slow, and compare the loss again.")
end

function Check:tanh_gelu(path, file)
	local e = self.e["torch.nn.functional.gelu"]
	for _i, m in ipairs(file.funcs) do
		if tanh_gelu_body(m.b.text) and not self:already(path, file, m.def.start_byte, e) then
			local owner = enclosing(file.classes, "cls", m.def.start_byte)
			local node = (owner and NORM_METHODS[m.n.text]) and owner.n or m.n
			local args = { name = node.text, fused = e.replacement }
			self:report(path, node, e,
				_("`{name}` computes GELU by hand with its tanh approximation (0.044715 · x³); on the NPU `{fused}` computes an approximate GELU in one operator.", args),
				fast_gelu_advice())
		end
	end
end

function Check:gated(path, file, map)
	local seen = {}
	for _i, m in ipairs(self.ctx.query(path, GATED) or {}) do
		local d = py.dotted(m.f.text)
		local kind = d and GATE_FUNCS[py.expand(map, d)]
		if kind and not seen[m.m.start_byte] then
			seen[m.m.start_byte] = true
			file.gate_calls[m.g.start_byte] = true
			local e = self.e[kind]
			if not self:already(path, file, m.m.start_byte, e) then
				local args = { expr = snippet(m.m.text), fused = e.replacement }
				self:report(path, m.m, e,
					kind == "SwiGLU"
						and _("`{expr}` is a SwiGLU gate (silu(A) × B); on the NPU `{fused}` computes it in one fused operator.", args)
						or _("`{expr}` is a GEGLU gate (gelu(A) × B); on the NPU `{fused}` computes it in one fused operator.", args),
					kind == "SwiGLU"
						and _("When A and B are the two halves of one tensor (`A, B = x.chunk(2, dim=-1)`), call `{fused}(x, dim=-1)` on the NPU (Atlas A2 training products); two separate projections first need one linear layer that produces both halves. Compare the loss against the GPU baseline afterwards.", args)
						or _("When A and B are the two halves of one tensor (`x.chunk(2, dim=-1)`), call `{fused}` on that tensor on the NPU (CANN 8.0 or later); check its approximate= argument against the GELU used here, and compare the loss against the GPU baseline afterwards.", args))
			end
		end
	end
end

-- GELU, SiLU, torch.roll and matmul with a transposed operand: one finding per file and API.
function Check:per_file(path, file, map)
	local sites, order = {}, {}
	local function add(api, node)
		if fallback.unreached(self.ctx, path, node.start_byte) then return end
		if not sites[api] then
			sites[api] = { first = node, n = 0 }
			order[#order + 1] = api
		end
		sites[api].n = sites[api].n + 1
	end
	for _i, c in ipairs(py.calls(self.ctx, path, PER_FILE, map) or {}) do
		if not file.gate_calls[c.call.start_byte] then
			add(PER_FILE[c.name] == true and c.name or PER_FILE[c.name], c.call)
		end
	end
	local operands = {}
	for _i, m in ipairs(self.ctx.query(path, MATMUL) or {}) do
		local d = m.f and py.dotted(m.f.text)
		if transposed(m.r.text) and (not m.f or (d and py.expand(map, d) == "torch.matmul")) then
			add("torch.matmul", m.m)
			operands[#operands + 1] = m.r
		end
	end
	local chains = layout_chains(self.ctx, path, file, operands)
	for _i, c in ipairs(chains) do add("permute/transpose + reshape", c.node) end
	for _i, api in ipairs(order) do
		local s, e = sites[api], self.e[api]
		if not self:already(path, file, nil, e) then
			local first = snippet(s.first.text)
			local message
			local args = { n = s.n, text = first, fused = e.replacement, api = api }
			if api == "torch.nn.functional.gelu" then
				message = s.n == 1
					and _("This file computes GELU once (`{text}`); `{fused}` is a faster approximation of it on the NPU.", args)
					or _("This file computes GELU ({n} sites, the first `{text}`); `{fused}` is a faster approximation of it on the NPU.", args)
			elseif api == "permute/transpose + reshape" then
				args.places = chain_places(chains)
				message = s.n == 1
					and _("The forward computation of this file changes a tensor's shape and the order of its dimensions in one chain once, in {places} (`{text}`); `{fused}` does both in one NPU operator.", args)
					or _("The forward computation of this file changes a tensor's shape and the order of its dimensions in one chain at {n} places ({places}; the first `{text}`); `{fused}` does both in one NPU operator.", args)
			elseif api == "torch.matmul" then
				message = s.n == 1
					and _("This file multiplies by a transposed operand once (`{text}`); `{fused}` does the transpose and the product in one NPU operator.", args)
					or _("This file multiplies by a transposed operand ({n} sites, the first `{text}`); `{fused}` does the transpose and the product in one NPU operator.", args)
			else
				message = s.n == 1
					and _("This file uses `{api}` once (`{text}`); torch_npu has an NPU-optimised version, `{fused}`.", args)
					or _("This file uses `{api}` ({n} sites, the first `{text}`); torch_npu has an NPU-optimised version, `{fused}`.", args)
			end
			if api == "permute/transpose + reshape" then
				-- reported when every file is seen (Check:layout_report)
				self.layout[#self.layout + 1] = { path = path, node = s.first, entry = e, message = message, n = s.n }
			else self:report(path, s.first, e, message,
				api == "torch.nn.functional.gelu"
					and fast_gelu_advice()
					or _("Try `{fused}` where the profile shows this code to be slow, once the NPU run matches the GPU baseline, and compare the loss again.",
						{ fused = e.replacement })) end
		end
	end
end

local function layout_advice(e)
	return _("Where the profile shows these transposes to be slow, once the NPU run matches the GPU baseline, call `{fused}(x, perm, shape, transpose_first)` on the NPU (CANN 6.3.RC2 or later: transpose_first=True when the permutation comes first), and compare the loss again.",
		{ fused = e.replacement })
end

-- How many files' layout chains are reported one by one; past it (a model zoo such as
-- timm, where every model's attention has them) one finding names the files with the most.
local LAYOUT_FILES = 10

function Check:layout_report()
	local list = self.layout
	if #list <= LAYOUT_FILES then
		for _i, l in ipairs(list) do self:report(l.path, l.node, l.entry, l.message, layout_advice(l.entry)) end
		return
	end
	local total = 0
	for _i, l in ipairs(list) do total = total + l.n end
	local sorted = {}
	for i, l in ipairs(list) do sorted[i] = l end
	table.sort(sorted, function(a, b) if a.n ~= b.n then return a.n > b.n end return a.path < b.path end)
	local top = {}
	for i = 1, 8 do top[i] = _("{file} ({n})", { file = sorted[i].path, n = sorted[i].n }) end
	local e = list[1].entry
	self.ctx.report{
		key = "layout_chains",
		message = _("The forward computation of {files} files changes a tensor's shape and the order of its dimensions in one chain ({n} places; the most in {top}); `{fused}` does both in one NPU operator.",
			{ files = #list, n = total, top = words.join(top), fused = e.replacement }),
		suggestion = _("{advice} Start with the files of the models the project trains.", { advice = layout_advice(e) }),
		data = { replacement = e.replacement, source = e.source, files = (function()
			local t = {}
			for i, l in ipairs(list) do t[i] = { file = l.path, line = l.node.line, places = l.n } end
			return t
		end)() },
	}
end

-- The classes and functions torch_npu.contrib has NPU versions of: defined by the project,
-- or imported from a library (an entry with a library counts only when imported from it).
function Check:contrib_apis(path, file, own)
	for _i, list in ipairs({ file.classes, file.funcs }) do
		for _i, m in ipairs(list) do
			local e = self.contrib[m.n.text]
			if e and not e.library and not self:already(path, file, nil, e) then
				self:report(path, m.n, e,
					_("`{name}` is defined here; torch_npu has an NPU version of it, `{fused}`.", { name = m.n.text, fused = e.replacement }),
					_("Try `{fused}` in its place where the profile shows it to be slow (check its arguments in the torch_npu.contrib documentation), once the NPU run matches the GPU baseline, and compare the loss again.",
						{ fused = e.replacement }))
			end
		end
	end
	for _i, imp in ipairs(py.imports(self.ctx, path) or {}) do
		local e = imp.name and self.contrib[imp.name]
		local root = imp.module:match("^[%w_]+")
		if e and root and not own:has(root, path) and (not e.library or root == e.library)
			and not self:already(path, file, nil, e) then
			self:report(path, imp.node, e,
				_("`{name}` is imported from `{module}`; torch_npu has an NPU version of it, `{fused}`.",
					{ name = imp.name, module = imp.module, fused = e.replacement }),
				_("Try `{fused}` in its place where the profile shows it to be slow (check its arguments in the torch_npu.contrib documentation), once the NPU run matches the GPU baseline, and compare the loss again.",
					{ fused = e.replacement }))
		end
	end
end

return {
	id = "tune.fused_apis",
	phase = "tune",
	title = _("Code an NPU fused operator computes in one step"),
	severity = "info",
	category = "performance",
	description = _("torch_npu has fused operators for shapes that are common in model code: a hand-written "
		.. "RMSNorm (npu_rms_norm), a rotate_half helper for rotary embeddings (npu_rotary_mul), SwiGLU "
		.. "and GEGLU gates (npu_swiglu, npu_geglu), GELU (fast_gelu, also a GELU written out with its "
		.. "tanh approximation), a transpose or permute chained with a view, reshape or flatten "
		.. "(npu_confusion_transpose), a product with a transposed operand (matmul_transpose), and NPU versions of modules such as DropPath, Mish and Focus. "
		.. "Reports where the project's code has them and does not use the fused operator yet. Each "
		.. "replacement rounds differently: make it after the NPU run matches the GPU baseline, and "
		.. "compare the loss again."),
	triggers = function(data)
		local t = { "rsqrt", "cat((-", "cat([-", "stack((-", "stack([-", "rotate_half", "rotate_every_two",
			"silu(", "gelu(", "GELU(", "SiLU(", "roll(", "transpose(-", ".mT", "0.044715", "transpose(", "permute(" }
		for name in pairs(contrib_names(data)) do t[#t + 1] = name end
		table.sort(t)
		return t
	end,
	run = function(ctx)
		local check = new_check(ctx)
		local own = project.own_modules(ctx)
		for _i, path in ipairs(project.program_files(ctx)) do
			local funcs = ctx.query(path, FUNCS)
			if funcs then
				local file = { funcs = funcs, classes = ctx.query(path, CLASSES) or {}, gate_calls = {} }
				local map = py.aliases(ctx, path) or {}
				for _bound, full in pairs(map) do
					if full == "torch" or full:sub(1, 6) == "torch." then file.torch = true end
				end
				check:rms_norm(path, file, map)
				check:rotary(path, file)
				check:tanh_gelu(path, file)
				check:gated(path, file, map)
				check:per_file(path, file, map)
				check:contrib_apis(path, file, own)
			end
		end
		check:layout_report()
	end,
}
