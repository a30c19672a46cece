-- train: what the tune checks need to know about a training script.
--
--   local train = require("train")
--   train.steps(ctx, path)              the loss.backward() calls of a file ({call=, object=})
--   train.autocast(ctx, path, map)      autocast regions: {call=, body=, dtype=, name=}
--   train.inside(node, regions)         the innermost region that contains the node, or nil
--   train.all_call_args(ctx, path)     a function call node -> {pos=, kw=, splat=} of its arguments
--   train.dtype(text, map)              "float16", "bfloat16", "float32" … for torch.half,
--                                       torch.float16, "float16" …; nil when not a literal dtype
--   train.cast_to(text, map)            the floating dtype the expression ends by casting to
--                                       (x.half(), x.float(), x.to(torch.float16), x.type(...)); nil otherwise
--   train.half_cast(text, map)          the same when it is "float16" or "bfloat16"; nil otherwise
--   train.cast_back(ctx, path, map)     a function telling whether a call is cast straight
--                                       back to 32 or 64 bits (`m.half().float()`)
--   train.project_calls(ctx, names, words)  calls anywhere in the project whose resolved name
--                                       is in names, found only in files containing one of words
--   train.setting_named(ctx, names, flag)  the first identifier of names in the project's code,
--                                       configs or launch scripts, and its file; also the text flag
--                                       (a command-line option) in the files that are not Python
--   train.off_by_default(ctx, path, node)  what keeps node from running by default (a text
--                                       naming the setting, such as an argparse option off
--                                       unless given), or nil
--
-- Everything works on the syntax tree (comments and strings never match); helpers taking
-- (ctx, path) return empty lists when the file cannot be parsed.

local py = require("py")

local train = {}

-- The names autocast is reached by (after import aliases are expanded).
train.AUTOCAST = {
	["torch.autocast"] = true, ["torch.amp.autocast"] = true, ["torch.cuda.amp.autocast"] = true,
	["torch.npu.amp.autocast"] = true, ["torch_npu.npu.amp.autocast"] = true,
	["torch.amp.autocast_mode.autocast"] = true,
}

local DTYPES = {
	float16 = "float16", half = "float16", bfloat16 = "bfloat16", float32 = "float32",
	float = "float32", float64 = "float64", double = "float64",
}

-- "float16" for torch.float16 / torch.half / 'float16' / 'fp16'-free spellings; nil otherwise.
function train.dtype(text, map)
	local s = py.string_value(text)
	if s then return DTYPES[s] end
	local d = py.dotted(text)
	if not d then return nil end
	if map then d = py.expand(map, d) end
	local last = d:match("^torch%.([%w_]+)$")
	return last and DTYPES[last] or nil
end

-- methods that cast to a dtype by their name alone
local CAST_METHOD = { half = "float16", bfloat16 = "bfloat16", float = "float32", double = "float64" }

-- The floating dtype an expression is explicitly cast to at its end (x.half(), x.float(),
-- x.to(torch.float16), x.to(dtype=torch.bfloat16), x.type(torch.float32)), or nil.
function train.cast_to(text, map)
	local method = text:match("%.([%a_][%w_]*)%(%s*%)$")
	if method and CAST_METHOD[method] then return CAST_METHOD[method] end
	local arg = text:match("%.to%(([^()]-)%)$") or text:match("%.type%(([^()]-)%)$")
	if arg then
		for part in (arg .. ","):gmatch("([^,]*),") do
			local v = part:match("^%s*dtype%s*=%s*(.-)%s*$") or part:match("^%s*(.-)%s*$")
			local d = train.dtype(v, map)
			if d then return d end
		end
	end
	return nil
end

-- The 16-bit dtype an expression is explicitly cast to at its end, or nil.
function train.half_cast(text, map)
	local d = train.cast_to(text, map)
	return (d == "float16" or d == "bfloat16") and d or nil
end

-- Casts undone at once: a function telling whether a call's value is cast straight back
-- to 32 or 64 bits (`model.half().float()`, which YOLOv5 uses to round its anchors, or
-- `x.to(torch.float16).to(torch.float32)`). Nothing runs in 16 bits between the two casts.
local CAST_BACK = [[
((call function: (attribute object: (call) @inner attribute: (identifier) @m) arguments: (argument_list)) @outer
 (#any-of? @m "float" "double" "to" "type"))
]]
function train.cast_back(ctx, path, map)
	local out = {}
	for _i, m in ipairs(ctx.query(path, CAST_BACK) or {}) do
		local d = train.cast_to(m.outer.text, map)
		if d == "float32" or d == "float64" then out[m.inner.start_byte .. ":" .. m.inner.end_byte] = true end
	end
	return function(call) return out[call.start_byte .. ":" .. call.end_byte] == true end
end

-- The arguments of every call of a file, from one query: returns a function mapping a call
-- node to {pos = {nodes in order}, kw = {name = value node}, splat = true when *a or **k}.
function train.all_call_args(ctx, path)
	local q = "(call arguments: (argument_list [(keyword_argument name: (identifier) @k value: (_) @v) "
		.. "(list_splat) @s (dictionary_splat) @s (_) @p]))  @c"
	local by = {}
	for _i, m in ipairs(ctx.query(path, q) or {}) do
		local key = m.c.start_byte .. ":" .. m.c.end_byte
		local a = by[key]
		if not a then
			a = { pos = {}, kw = {}, splat = false }
			by[key] = a
		end
		if m.k then
			a.kw[m.k.text] = m.v
		elseif m.s then
			a.splat = true
		elseif m.p and m.p.type ~= "comment" and m.p.type ~= "keyword_argument" then
			a.pos[#a.pos + 1] = m.p
		end
	end
	for _i, a in pairs(by) do
		table.sort(a.pos, function(x, y) return x.start_byte < y.start_byte end)
	end
	return function(call)
		return by[call.start_byte .. ":" .. call.end_byte] or { pos = {}, kw = {}, splat = false }
	end
end

-- loss.backward(...) calls: the training steps of a file.
function train.steps(ctx, path)
	return py.method_calls(ctx, path, "backward") or {}
end

-- Autocast regions: `with autocast(...):` blocks whose callee resolves to an autocast name.
-- dtype is the literal dtype argument, else the default of the device type ("bfloat16"
-- for 'cpu', "float16" otherwise); regions with enabled=False are left out.
local WITH = [[
(with_statement (with_clause (with_item value: (call function: (_) @f arguments: (argument_list) @args) @call)) body: (block) @body)
]]
function train.autocast(ctx, path, map)
	local out = {}
	local args_of
	for _i, m in ipairs(ctx.query(path, WITH) or {}) do
		local name = py.dotted(m.f.text)
		if name and train.AUTOCAST[py.expand(map or {}, name)] then
			args_of = args_of or train.all_call_args(ctx, path)
			local a = args_of(m.call)
			local enabled = a.kw.enabled and a.kw.enabled.text
			if enabled ~= "False" then
				local dt = a.kw.dtype and train.dtype(a.kw.dtype.text, map)
				local device = a.kw.device_type or a.pos[1]
				local full = py.expand(map or {}, name)
				if not dt and (full == "torch.autocast" or full == "torch.amp.autocast") and a.pos[2] then
					dt = train.dtype(a.pos[2].text, map)
				end
				if not dt and a.kw.dtype then dt = "unknown" end
				if not dt then
					local dev = device and py.string_value(device.text)
					dt = (dev == "cpu") and "bfloat16" or "float16"
				end
				out[#out + 1] = { call = m.call, body = m.body, dtype = dt, name = name }
			end
		end
	end
	table.sort(out, function(x, y) return x.call.start_byte < y.call.start_byte end)
	return out
end

-- The innermost region whose body holds the node.
function train.inside(node, regions)
	local best
	for _i, r in ipairs(regions) do
		if node.start_byte >= r.body.start_byte and node.end_byte <= r.body.end_byte then
			if not best or r.body.start_byte >= best.body.start_byte then best = r end
		end
	end
	return best
end

-- Calls anywhere in the project whose resolved dotted name is in names (a set). Only .py
-- files whose text contains one of words are parsed. Returns a list of {path=, call=, name=}.
function train.project_calls(ctx, names, words)
	local out = {}
	for _i, path in ipairs(ctx.files("%.py$")) do
		local hit = false
		for _i, w in ipairs(words) do
			if ctx.find(path, w) then hit = true break end
		end
		if hit then
			local map = py.aliases(ctx, path) or {}
			for _i, c in ipairs(py.calls(ctx, path, names, map) or {}) do
				out[#out + 1] = { path = path, call = c.call, name = c.name, args = c.args }
			end
		end
	end
	return out
end

-- Files where a project sets up its training: code, configs and launch scripts.
local SETTING_FILES = { "%.py$", "%.ya?ml$", "%.json$", "%.sh$", "%.toml$", "%.cfg$", "%.ini$" }

-- The first identifier of the set names (keys) anywhere in those files, in code, comments
-- and strings alike (a config key counts), and its path; with flag, a file other than
-- Python holding that text counts too (Megatron's `--clip-grad` is two identifiers). nil
-- when none does.
function train.setting_named(ctx, names, flag)
	for _i, pattern in ipairs(SETTING_FILES) do
		for _j, path in ipairs(ctx.files(pattern)) do
			local found = ctx.find_names(path, names)
			if found and found[1] then return found[1], path end
			if flag and not path:match("%.py$") and ctx.find(path, flag) then return flag, path end
		end
	end
	return nil
end

-- identifiers that choose or name a 16-bit mode, as ctx.find_names finds them (in code,
-- comments and strings alike: a config key or a command-line flag counts)
local SIXTEEN_BIT = {}
for _i, n in ipairs({ "autocast", "GradScaler", "amp", "half", "float16", "bfloat16", "fp16", "bf16", "HalfTensor",
	"BFloat16Tensor", "mixed_precision", "precision_scope", "lightning", "pytorch_lightning" }) do
	SIXTEEN_BIT[n] = true
end

-- Whether anything in the project chooses a 16-bit mode (autocast, GradScaler, an amp
-- module, a 16-bit cast, an fp16/bf16 setting in code, configs or launch scripts; a
-- Lightning Trainer, whose precision is its own setting): setting_named's answer, or nil.
function train.sixteen_bit(ctx)
	return train.setting_named(ctx, SIXTEEN_BIT)
end

-- The ifs and elifs of a file and the module-level assignments and argparse options that can make
-- their condition false by default.
local GATES = [[
(if_statement condition: (_) @cond consequence: (block) @body)
(elif_clause condition: (_) @cond consequence: (block) @body)
(module (expression_statement (assignment left: (identifier) @l right: (_) @v)))
((call function: (attribute attribute: (identifier) @m) arguments: (argument_list) @a) (#eq? @m "add_argument"))
]]

-- Whether an argparse option's arguments leave it false unless given on the command line:
-- a false default (False, None, 0, an empty string), or no default at all (argparse's is
-- None, False for store_true) for an option neither required nor store_false (timm's
-- `--torchcompile`, nargs='?' with default=None).
local function off_option(args)
	local default = args:match("default%s*=%s*([^,%)]+)")
	if default then
		default = default:match("^(.-)%s*$")
		return default == "False" or default == "None" or default == "0" or default == "''" or default == '""'
	end
	return not args:find("required%s*=%s*True") and not args:find("action%s*=%s*[\"']store_false[\"']")
end

-- The first argument list among options (of add_argument calls) that declares the option
-- stored as dest (`--dest` with - or _, or dest='dest') and for whose text accept(text)
-- is true, and what accept returned; nil when none does.
local function option_named(options, dest, accept)
	local flag = "%-%-" .. dest:gsub("_", "[-_]")
	for _i, a in ipairs(options) do
		if a.text:find("[\"']" .. flag .. "[\"']") or a.text:find("dest%s*=%s*[\"']" .. dest .. "[\"']") then
			local v = accept(a.text)
			if v then return a, v end
		end
	end
	return nil
end

-- The default of a count option that stays at most one unless given ("1"), or nil.
local function single_default(args)
	local default = args:match("default%s*=%s*(%d+)%s*[,%)]")
	return default and tonumber(default) <= 1 and default or nil
end

-- What keeps node from running by default: it sits under `if NAME:` where every
-- module-level assignment to NAME is False (nanoGPT's sample.py: `compile = False`, set
-- otherwise only from the command line), under `if args.NAME:` of an option that is off
-- unless given (off_option), or under `if args.NAME > 1:` of a count whose default is at
-- most one (timm's `--num-gpu`, default 1); the innermost such condition is named.
-- A text naming the setting ("`compile = False` on line 22"), or nil.
function train.off_by_default(ctx, path, node)
	local ifs, assigns, options = {}, {}, {}
	for _i, m in ipairs(ctx.query(path, GATES) or {}) do
		if m.cond then ifs[#ifs + 1] = m
		elseif m.l then assigns[#assigns + 1] = m
		elseif m.a then options[#options + 1] = m.a end
	end
	-- the innermost condition first: it is the one that names what turns node on
	table.sort(ifs, function(a, b) return a.body.start_byte > b.body.start_byte end)
	for _i, g in ipairs(ifs) do
		if node.start_byte >= g.body.start_byte and node.end_byte <= g.body.end_byte then
			local cond = g.cond.text
			local name = cond:match("^[%a_][%w_]*$")
			if name then
				local last
				for _j, a in ipairs(assigns) do
					if a.l.text == name then
						if a.v.text ~= "False" then last = nil break end
						last = a
					end
				end
				if last then return _("`{name} = False` on line {line}", { name = name, line = last.l.line }) end
			end
			-- `if args.NAME:` of an option off unless given
			local dest = cond:match("^[%a_][%w_]*%.([%a_][%w_]*)$")
			local a = dest and option_named(options, dest, off_option)
			if a then
				return _("the option `--{dest}` on line {line}, off unless given", { dest = (dest:gsub("_", "-")), line = a.line })
			end
			-- a count compared with one: `if args.num_gpu > 1:` of an option whose default is 1
			local counted = cond:match("^[%a_][%w_]*%.([%a_][%w_]*)%s*>%s*1$")
				or cond:match("^[%a_][%w_]*%.([%a_][%w_]*)%s*>=%s*2$")
			local default
			if counted then a, default = option_named(options, counted, single_default) end
			if a then
				return _("the option `--{dest}` on line {line}, {default} unless given", { dest = (counted:gsub("_", "-")), line = a.line, default = default })
			end
		end
	end
	return nil
end

return train
