-- assess.legacy_torch: idioms of torch 0.3 that still parse but fail on a modern torch.
--
-- Code written for torch 0.3 (detection code of 2017, say) imports fine on torch 2.x, the
-- torch of every torch_npu release, and then stops where it runs such an idiom:
--   * a legacy autograd Function: a class deriving torch.autograd.Function (however
--     imported) whose forward is not a @staticmethod, instantiated and called. torch
--     refuses it with a RuntimeError since 1.5;
--   * `X.data[0]` reading a number from a tensor that is 0-dim since torch 0.4 (an
--     IndexError). Only where the code shows X is a scalar: a loss (a name holding
--     "loss"), a full reduction (`.sum()`, `.mean()` … without arguments), or an element
--     taken by indexing and converted with int()/float(). Any other `X.data[0]` is the first
--     row of a tensor, which modern code writes too, and is left alone. The same read through
--     a host copy, `X.data.cpu()[0]` or `X.data.cpu().numpy()[0]`, fails the same way (numpy
--     refuses to index its 0-dim array);
--   * `Variable(..., volatile=True)`, which does nothing since 0.4 (a warning finding: the
--     code runs, but evaluates with autograd recording).
-- The facts (release, error text, fix, source) are in plugins/data/legacy_torch.json.

local py = require("py")
local words = require("words")

local FUNCTION = { ["torch.autograd.Function"] = true, ["torch.autograd.function.Function"] = true }
local VARIABLE = { ["torch.autograd.Variable"] = true, ["torch.autograd.variable.Variable"] = true }
local REDUCTIONS = { sum = true, mean = true, prod = true, norm = true, max = true, min = true,
	std = true, var = true, median = true }

local CLASSES = [[
(class_definition name: (identifier) @name superclasses: (argument_list) @bases
  body: (block (function_definition name: (identifier) @f) @fdef) (#eq? @f "forward")) @class
(class_definition name: (identifier) @name superclasses: (argument_list) @bases
  body: (block (decorated_definition definition: (function_definition name: (identifier) @f)) @ddef)
  (#eq? @f "forward")) @class
]]

local DATA0 = [[
((subscript value: (attribute object: (_) @obj attribute: (identifier) @attr) subscript: (integer) @idx) @sub
  (#eq? @attr "data") (#eq? @idx "0"))
((call function: (identifier) @conv
  arguments: (argument_list . (subscript value: (attribute object: (subscript) @obj attribute: (identifier) @attr)
    subscript: (integer) @idx) @sub .))
  (#any-of? @conv "int" "float") (#eq? @attr "data") (#eq? @idx "0"))
]]

-- X.data.cpu()[0], X.data.cpu().numpy()[0], X.cpu().numpy()[0]: a 0 index on a host copy.
local HOST_COPY0 = [[
((subscript value: (call function: (attribute attribute: (identifier) @m)) @chain subscript: (integer) @idx) @sub
  (#any-of? @m "cpu" "numpy") (#eq? @idx "0"))
]]

local VOLATILE = [[
(call function: (_) @func
  arguments: (argument_list (keyword_argument name: (identifier) @k) @arg) (#eq? @k "volatile"))
]]

local function entry(ctx, name)
	for _i, e in ipairs(ctx.data("legacy_torch").entries) do
		if e.name == name then return e end
	end
	error("legacy_torch.json has no entry " .. name)
end

local function clip(ctx, path, node)
	return words.clip(ctx.node_text(path, node.start_byte, node.end_byte):match("^[^\n]*"), 60)
end

-- Whether one of the bases written in "(A, b.C, metaclass=M)" is torch.autograd.Function.
local function derives_function(aliases, bases)
	for part in bases:gsub("^%(", ""):gsub("%)$", ""):gmatch("[^,]+") do
		local d = py.dotted((part:gsub("%s+", "")))
		if d and FUNCTION[py.expand(aliases, d)] then return true end
	end
	return false
end

local function legacy_functions(ctx, path, aliases, e)
	local seen = {}
	for _i, m in ipairs(ctx.query(path, CLASSES) or {}) do
		local static = m.ddef and m.ddef.text:find("@%s*staticmethod") ~= nil
		local key = m.class.start_byte
		if not static and not seen[key] and derives_function(aliases, m.bases.text) then
			seen[key] = true
			local fields = { name = m.name.text, since = e.fails_since, error = e.error }
			ctx.report{
				file = path, node = m.class, key = "legacy_function:" .. m.name.text, severity = "error",
				message = _("`{name}` is a legacy autograd Function: it derives torch.autograd.Function but its forward is not a @staticmethod. PyTorch {since} and later, the torch of every torch_npu release among them, refuse to run it: \"{error}\"", fields),
				suggestion = _("{fix} Call it as `{name}.apply(...)`.", { fix = _(e.fix), name = m.name.text }),
				data = { source = e.source },
			}
		end
	end
end

-- Why the tensor written text (the X of X.data[0]) is a 0-dim tensor, or nil when the code
-- does not show it: a name holding "loss" or "entropy", or a full reduction.
local function scalar_reason(text)
	local d = py.dotted(text)
	if d then
		local last = d:match("[%w_]+$"):lower()
		if (last:find("loss", 1, true) and not last:find("losses$")) or last:find("entropy", 1, true) then
			return _("a loss")
		end
		return nil
	end
	local method = text:match("%.([%a_]+)%(%s*%)$")
	if method and REDUCTIONS[method] then
		return _("the result of `.{method}()` over the whole tensor", { method = method })
	end
	return nil
end

-- The tensor under a host-copy chain ("loss.data.cpu().numpy()" -> "loss") and whether the
-- chain ends in a numpy array.
local function host_copy_base(chain)
	local base, numpy = chain, false
	while true do
		local rest, step = base:match("^(.-)%.([%a_]+)%(%s*%)$")
		if not (rest and (step == "cpu" or step == "numpy" or step == "detach")) then
			rest = base:match("^(.-)%.data$")
			step = "data"
		end
		if not rest or rest == "" then return base, numpy end
		numpy = numpy or step == "numpy"
		base = rest
	end
end

-- Reports `code` (node sub) that reads a number from the 0-dim tensor `obj` by indexing; the
-- reads of one file are one piece of work (a .item() each).
local function report_index(ctx, path, e, sub, obj, why)
	local code = clip(ctx, path, sub)
	ctx.report{
		file = path, node = sub, key = "data_index:" .. code, unit = "data_index:" .. path, severity = "error",
		message = _("`{code}` reads a number the torch 0.3 way: its tensor is {what}, which is a 0-dim tensor since PyTorch {since}, and indexing it fails: \"{error}\"",
			{ code = code, what = why, since = e.fails_since, error = e.error }),
		suggestion = _("{fix} Here: `{now}`.",
			{ fix = _(e.fix), now = words.clip(obj:match("^[^\n]*"), 60) .. ".item()" }),
		data = { source = e.source },
	}
end

-- Reports each `X.data[0]` (and `int(x[i].data[0])`) on a tensor the code shows to be 0-dim.
local function data_index(ctx, path, e)
	local seen = {}
	for _i, m in ipairs(ctx.query(path, DATA0) or {}) do
		local key = m.sub.start_byte
		local why = not seen[key] and (m.conv and _("an element taken by indexing, converted to a number")
			or scalar_reason(m.obj.text))
		if why then
			seen[key] = true
			report_index(ctx, path, e, m.sub, m.obj.text, why)
		end
	end
end

-- Reports each `X.data.cpu()[0]` / `X.data.cpu().numpy()[0]` on a tensor the code shows to be
-- 0-dim; e_numpy holds numpy's error for the chains that end in .numpy().
local function host_copy_index(ctx, path, e, e_numpy)
	for _i, m in ipairs(ctx.query(path, HOST_COPY0) or {}) do
		local base, numpy = host_copy_base(m.chain.text)
		local why = base ~= m.chain.text and scalar_reason(base)
		if why then report_index(ctx, path, numpy and e_numpy or e, m.sub, base, why) end
	end
end

local function volatile(ctx, path, aliases, e)
	for _i, m in ipairs(ctx.query(path, VOLATILE) or {}) do
		local d = py.dotted(m.func.text)
		if d and VARIABLE[py.expand(aliases, d)] then
			local code = clip(ctx, path, m.arg)
			ctx.report{
				file = path, node = m.arg, key = "volatile:" .. code, severity = "warning",
				message = _("`{code}`: Variable's volatile flag has had no effect since PyTorch {since} (\"{error}\"), so the code meant to run without autograd now records it, holding every intermediate tensor until the result is freed.",
					{ code = code, since = e.fails_since, error = e.error }),
				suggestion = _(e.fix),
				data = { source = e.source },
			}
		end
	end
end

return {
	id = "assess.legacy_torch",
	phase = "assess",
	title = _("torch 0.3 idioms that fail on a modern torch"),
	severity = "error",
	category = "versions",
	description = _("Finds code written for torch 0.3 that parses but fails on every torch torch_npu pairs with "
		.. "(plugins/data/legacy_torch.json): legacy autograd Functions (a class deriving torch.autograd.Function "
		.. "whose forward is not a @staticmethod), refused since PyTorch 1.5; `X.data[0]` on a 0-dim tensor, an "
		.. "IndexError since 0.4, reported only where the code shows X is a scalar (a loss, a full reduction such "
		.. "as `.sum()`, an element converted with int() or float()), since on other tensors it reads a first row, "
		.. "as modern code does too, and the same read through a host copy (`X.data.cpu().numpy()[0]`); and `Variable(..., volatile=True)`, without effect since 0.4 (a warning)."),
	triggers = { "autograd", ".data[0]", ".numpy()[0]", ".cpu()[0]", "volatile" },
	run = function(ctx)
		local fn, d0, vol = entry(ctx, "legacy_function"), entry(ctx, "data_index"), entry(ctx, "volatile")
		local np0 = entry(ctx, "numpy_index")
		for _i, path in ipairs(ctx.python_files()) do
			local aliases = py.aliases(ctx, path) or {}
			legacy_functions(ctx, path, aliases, fn)
			data_index(ctx, path, d0)
			host_copy_index(ctx, path, d0, np0)
			volatile(ctx, path, aliases, vol)
		end
	end,
}
