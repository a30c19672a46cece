-- export: the project's ONNX exports and the ATC command that converts their output.
--
-- An export is a call of torch.onnx.export or of a library function that calls it for its
-- users (plugins/data/onnx_exporters.json: ultralytics' torch2onnx, which current yolov5
-- exports with); its arguments are read where the table says the function takes them. A
-- function of the project that passes its own parameters on to an export unchanged
-- (yolov5's `export_onnx(model, im, file, opset, ...)`) is followed to its callers across
-- the project, so an opset or dynamic axes given there as a literal are read as the
-- export's own (export.project).
--
--   local export = require("export")
--   for _i, e in ipairs(export.calls(ctx, path)) do ... end
--     e.call, e.func (the exporter's dotted name), e.exporter (its onnx_exporters.json
--     entry), e.args ({pos=, kw=}), e.file (the output path when a literal), e.opset
--     (number, or nil when absent; e.opset_node when present, e.opset_kw the keyword that
--     gives it; left out of a wrapper with a default, that default and e.opset_default;
--     through an argparse default or a module constant, e.opset_source is the node that
--     sets it), e.input_names (list of literal names or nil), e.shape (list of ints of the
--     first input when the dummy input is a literal torch.randn/rand/zeros/ones/empty/randint
--     call, directly or through one assignment), e.dynamic (set of dynamic dimension indexes
--     of the first input, or nil; e.dynamic_node, e.dynamic_kw), e.training_node /
--     e.training, e.folding_node / e.folding, e.buffer (true when it writes to an in-memory
--     buffer, io.BytesIO), e.test (true in test code, project.test_file), e.fn (the
--     project's top-level function or method of a top-level class holding the call: {name=,
--     path=, node=, params=, class=}; a method is called as `self.name(...)` or
--     `cls.name(...)` inside its class) and e.flows (role -> the parameter of e.fn
--     that reaches the export unchanged: {opset = "opset"}; roles: opset, dynamic_axes, file)
--   local all = export.project(ctx)
--     all.exports  every export of the project (export.calls of each file), in file order
--     all.callers  e -> the calls of e.fn across the project ({path=, node=}), in file order
--     all.routes   the literal values callers give an export through functions of the
--                  project: {export=, role=, value= (opset: number; dynamic_axes: set of
--                  the first input's dynamic dims, or false for none; file: string),
--                  node= (what sets it), path= (its file), how= ("argument"; "default":
--                  a parameter's default the call leaves as it is; "cli": an argparse
--                  default, reaching the function through `f(**vars(args))` or read as
--                  `args.opset`, option= "--opset"; "constant": a module constant),
--                  param= and fn= (the parameter and the function it is given for), via=
--                  (the calls it passes, outermost first: {path=, node=, name=})}; an
--                  export's dynamic axes and file that all its routes give alike are set
--                  on it (e.dynamic, e.file)
--   export.atc(ctx, e, soc, model) -> the atc command line (string), a list of notes and
--     the model file it converts (nil when neither the code nor the model tells);
--     model, when given, is the ingested ONNX model the export writes ({artifact=, onnx=},
--     ctx.artifacts and ctx.onnx): its inputs' names, shapes and types are used, not the
--     code's

local py = require("py")
local train = require("train")
local atc = require("atc")
local words = require("words")
local project = require("project")

local export = {}

local MAKERS = { randn = 1, rand = 1, zeros = 1, ones = 1, empty = 1, randint = 3 }

-- The exporters of onnx_exporters.json by dotted name.
local function exporters(ctx)
	local by = {}
	for _i, x in ipairs(ctx.data("onnx_exporters").entries) do by[x.name] = x end
	return by
end

-- The argument a call gives for a place {pos=, kw=} of the exporter's table, or nil.
local function arg_of(a, spec)
	if not spec then return nil end
	return (spec.kw and a.kw[spec.kw]) or (spec.pos and a.pos[spec.pos]) or nil
end

-- Integers of a shape given as "1, 3, 224, 224" or "(1, 3, 224, 224)"; nil otherwise.
local function ints(text)
	local t = text:gsub("^%s*[%(%[]", ""):gsub("[%)%]]%s*$", "")
	local out = {}
	for part in (t .. ","):gmatch("([^,]*),") do
		local p = part:match("^%s*(.-)%s*$")
		if p ~= "" then
			local n = tonumber(p)
			if not n or n ~= math.floor(n) or n < 0 then return nil end
			out[#out + 1] = math.floor(n)
		end
	end
	return #out > 0 and out or nil
end

-- The shape of a literal tensor-making call (torch.randn(1, 3, 224, 224, device=...)).
local function shape_of(ctx, path, node, args_of, map)
	if node.type ~= "call" then return nil end
	local fn = node.text:match("^([%w_%.%s]+)%(")
	local d = fn and py.dotted(fn)
	if not d then return nil end
	d = py.expand(map, d)
	local maker = d:match("^torch%.([%w_]+)$")
	local at = maker and MAKERS[maker]
	if not at then return nil end
	local a = args_of(node)
	if a.kw.size then return ints(a.kw.size.text) end
	if at == 3 then return a.pos[3] and ints(a.pos[3].text) end
	if #a.pos == 1 and (a.pos[1].type == "tuple" or a.pos[1].type == "list") then return ints(a.pos[1].text) end
	local texts = {}
	for _i, p in ipairs(a.pos) do texts[#texts + 1] = p.text end
	return ints(table.concat(texts, ","))
end

-- String literals of a list/tuple literal: ["input", "mask"] -> {"input", "mask"}.
local function names_of(node)
	if not node or (node.type ~= "list" and node.type ~= "tuple") then return nil end
	local out = {}
	for s in node.text:gmatch("(['\"][^'\"]*['\"])") do
		out[#out + 1] = py.string_value(s)
	end
	return #out > 0 and out or nil
end

-- Dynamic dimensions of one input in a literal dynamic_axes dict: {0: "batch"} or [0, 2].
local function dynamic_of(node, name)
	if not node or node.type ~= "dictionary" or not name then return nil end
	local body = node.text
	for _i, q in ipairs({ '"', "'" }) do
		local s, e = body:find(q .. name:gsub("%p", "%%%0") .. q .. "%s*:%s*", 1, false)
		if s then
			local rest = body:sub(e + 1)
			local inner = rest:match("^(%b{})") or rest:match("^(%b[])")
			if not inner then return nil end
			local dims = {}
			if inner:sub(1, 1) == "{" then
				for n in inner:gmatch("(%d+)%s*:") do dims[tonumber(n)] = true end
			else
				for n in inner:gmatch("%d+") do dims[tonumber(n)] = true end
			end
			return dims
		end
	end
	return nil
end

-- The default of the argparse option of a file whose destination is `dest`
-- (`add_argument("--opset", type=int, default=17)`, or dest="opset"): the default's node
-- and the option as written ("--opset"), or nil.
local ADD_ARGUMENT = '((call function: (attribute attribute: (identifier) @m) arguments: (argument_list) @a) @c (#eq? @m "add_argument"))'
local function argparse_default(ctx, path, dest, args_of)
	for _i, m in ipairs(ctx.query(path, ADD_ARGUMENT) or {}) do
		local a = args_of(m.c)
		local name = a.kw.dest and py.string_value(a.kw.dest.text)
		local option
		for _i, opt in ipairs(a.pos) do
			local v = opt.type == "string" and py.string_value(opt.text)
			if v and v:sub(1, 2) == "--" then option = v break end
		end
		name = name or (option and option:sub(3):gsub("%-", "_"))
		if name == dest and a.kw.default then return a.kw.default, option or dest end
	end
	return nil
end

-- The integer an opset argument that is no literal stands for, and the node that sets it:
-- the default of an argparse option (`args.opset` from `add_argument("--opset", type=int,
-- default=17)`, or dest="opset") or a module-level constant (`OPSET = 17`). nil when it
-- cannot be told from the file.
local MODULE_CONSTANT = "(module (expression_statement (assignment left: (identifier) @l right: (integer) @v)))"
local function opset_source(ctx, path, node, args_of)
	if node.type == "attribute" then
		local name = node.text:match("^[%a_][%w_]*%s*%.%s*([%a_][%w_]*)$")
		if not name then return nil end
		local d, option = argparse_default(ctx, path, name, args_of)
		if d and d.type == "integer" then return tonumber(d.text), d, option end
	elseif node.type == "identifier" then
		local found
		for _i, m in ipairs(ctx.query(path, MODULE_CONSTANT) or {}) do
			if m.l.text == node.text then found = m.v end
		end
		if found then return tonumber(found.text), found end
	end
	return nil
end

-- The value an argument gives the export when there is one: `x or None` and `x if cond
-- else None` give x (yolov5's `dynamic=dynamic or None`), anything else itself.
local WHEN_SET = [[
(boolean_operator left: (_) @x operator: "or" right: (none)) @w
(conditional_expression . (_) @x (_) (none) .) @w
]]
local function when_set(ctx, path, node)
	if not node or (node.type ~= "boolean_operator" and node.type ~= "conditional_expression") then return node end
	for _i, m in ipairs(ctx.query(path, WHEN_SET) or {}) do
		if m.w.start_byte == node.start_byte and m.w.end_byte == node.end_byte then return m.x end
	end
	return node
end

-- The project's top-level functions of a file and the methods of its top-level classes
-- (decorated or not), with their parameters in order: {name=, path=, node= (the
-- definition), body=, params = {{name=, default= (node or nil), kind= "pos" | "kw"
-- (keyword-only) | "star" | "dstar"}}, class= (a method's class node, else nil)}. A
-- method's parameters leave out its first one (self, cls) unless it is a staticmethod, so
-- they line up with the arguments of `self.name(...)`.
local DEFS = [[
(module (function_definition name: (identifier) @n parameters: (parameters) @ps body: (block) @body) @def)
(module (decorated_definition definition: (function_definition name: (identifier) @n parameters: (parameters) @ps body: (block) @body) @def))
(module (class_definition body: (block (function_definition name: (identifier) @n parameters: (parameters) @ps body: (block) @body) @def)) @cls)
(module (class_definition body: (block (decorated_definition definition: (function_definition name: (identifier) @n parameters: (parameters) @ps body: (block) @body) @def) @dec)) @cls)
(module (decorated_definition definition: (class_definition body: (block (function_definition name: (identifier) @n parameters: (parameters) @ps body: (block) @body) @def)) @cls))
(module (decorated_definition definition: (class_definition body: (block (decorated_definition definition: (function_definition name: (identifier) @n parameters: (parameters) @ps body: (block) @body) @def) @dec)) @cls))
]]
local PARAMS = [[
(parameters (identifier) @p)
(parameters (default_parameter name: (identifier) @p value: (_) @v))
(parameters (typed_parameter . (identifier) @p))
(parameters (typed_default_parameter name: (identifier) @p value: (_) @v))
(parameters (list_splat_pattern) @star)
(parameters (keyword_separator) @star)
(parameters (dictionary_splat_pattern) @dstar)
]]

-- The parameters of the definition whose parameter list is ps, in order (see functions).
local function params_in(ps, params)
	local out, kw = {}, false
	for _j, q in ipairs(params) do
		local n = q.p or q.star or q.dstar
		if n.start_byte > ps.start_byte and n.end_byte <= ps.end_byte then
			if q.star then
				kw = true
				out[#out + 1] = { kind = "star" }
			elseif q.dstar then
				out[#out + 1] = { kind = "dstar" }
			else
				out[#out + 1] = { name = q.p.text, default = q.v, kind = kw and "kw" or "pos" }
			end
		end
	end
	return out
end

local function functions(ctx, path)
	local out = {}
	local params = ctx.query(path, PARAMS) or {}
	table.sort(params, function(x, y)
		return (x.p or x.star or x.dstar).start_byte < (y.p or y.star or y.dstar).start_byte
	end)
	for _i, m in ipairs(ctx.query(path, DEFS) or {}) do
		local f = { name = m.n.text, path = path, node = m.def, body = m.body, class = m.cls,
			params = params_in(m.ps, params) }
		local static = m.dec and m.dec.text:sub(1, m.def.start_byte - m.dec.start_byte):find("@%s*staticmethod%f[^%w_]")
		if f.class and not static and f.params[1] and f.params[1].kind == "pos" then table.remove(f.params, 1) end
		out[#out + 1] = f
	end
	table.sort(out, function(x, y) return x.node.start_byte < y.node.start_byte end)
	return out
end

-- The function of fns holding node, or nil.
local function holder(fns, node)
	for _i, f in ipairs(fns) do
		if f.body.start_byte <= node.start_byte and node.end_byte <= f.body.end_byte then return f end
	end
	return nil
end

-- Whether a parameter of f is assigned in its body before the byte at.
local ASSIGNED = [[
(assignment left: (identifier) @l)
(augmented_assignment left: (identifier) @l)
(for_statement left: (identifier) @l)
]]
local function reassigned(ctx, f, name, at)
	for _i, m in ipairs(ctx.query(f.path, ASSIGNED) or {}) do
		if m.l.text == name and m.l.start_byte > f.body.start_byte and m.l.start_byte < at then return true end
	end
	return false
end

-- The parameter of f a node passes on unchanged at the byte at (a name of its parameters
-- not assigned before), or nil.
local function param_of(ctx, f, node, at)
	if not f or not node or node.type ~= "identifier" then return nil end
	for _i, p in ipairs(f.params) do
		if p.name == node.text then
			return not reassigned(ctx, f, p.name, at) and p.name or nil
		end
	end
	return nil
end

-- Whether the node an export writes to is an in-memory buffer (`io.BytesIO()`, directly
-- or through the name assigned it).
local function in_memory(node)
	return node ~= nil and node.type == "call" and node.text:match("^[%w_%.%s]*BytesIO%s*%(") ~= nil
end

-- Every export of a file (see the header for the fields).
function export.calls(ctx, path)
	local map = py.aliases(ctx, path) or {}
	local by = exporters(ctx)
	local names = {}
	for n in pairs(by) do names[n] = true end
	local out, args_of, assigns, fns = {}, nil, nil, nil
	for _i, c in ipairs(py.calls(ctx, path, names, map) or {}) do
		args_of = args_of or train.all_call_args(ctx, path)
		fns = fns or functions(ctx, path)
		local x = by[c.name]
		local a = args_of(c.call)
		local e = { call = c.call, func = c.name, exporter = x, args = a, path = path, flows = {} }
		e.fn = holder(fns, c.call)
		-- a name passed for an argument stands for the value last assigned to it before the
		-- call (`dynamic_axes = {...}` then `dynamic_axes=dynamic_axes`)
		local function resolved(node)
			node = when_set(ctx, path, node)
			if not node or node.type ~= "identifier" then return node end
			if not assigns then
				assigns = {}
				for _i, m in ipairs(ctx.query(path, "(assignment left: (identifier) @l right: (_) @r)") or {}) do
					assigns[#assigns + 1] = m
				end
			end
			local best
			for _i, m in ipairs(assigns) do
				if m.l.text == node.text and m.l.start_byte < c.call.start_byte and holder(fns, m.l) == e.fn
					and (not best or m.l.start_byte > best.l.start_byte) then best = m end
			end
			return best and best.r or nil
		end
		local f = resolved(arg_of(a, x.args.file))
		e.file = f and f.type == "string" and py.string_value(f.text) or nil
		e.buffer = in_memory(f)
		e.test = project.test_file(path)
		e.flows.file = not e.file and param_of(ctx, e.fn, arg_of(a, x.args.file), c.call.start_byte) or nil
		local defaults = x.defaults or {}
		e.opset_node = arg_of(a, x.args.opset)
		e.opset_kw = x.args.opset and x.args.opset.kw
		e.opset = e.opset_node and tonumber(e.opset_node.text) or nil
		if e.opset_node and not e.opset then
			e.opset, e.opset_source = opset_source(ctx, path, e.opset_node, args_of)
			e.flows.opset = param_of(ctx, e.fn, e.opset_node, c.call.start_byte)
		elseif not e.opset_node and defaults.opset then
			e.opset, e.opset_default = defaults.opset, true
		end
		e.input_names = names_of(resolved(arg_of(a, x.args.input_names))) or defaults.input_names
		e.dynamic_node = arg_of(a, x.args.dynamic_axes)
		e.dynamic_kw = x.args.dynamic_axes and x.args.dynamic_axes.kw
		e.flows.dynamic_axes = param_of(ctx, e.fn, when_set(ctx, path, e.dynamic_node), c.call.start_byte)
		local input = arg_of(a, x.args.inputs)
		if input and input.type == "tuple" then
			local t = input
			input = nil
			for _i, m in ipairs(ctx.query(path, "(tuple . (_) @first) @t") or {}) do
				if m.t.start_byte == t.start_byte then input = m.first break end
			end
		end
		input = resolved(input)
		if input then e.shape = shape_of(ctx, path, input, args_of, map) end
		-- axes a parameter passes on are the callers' (export.project reads them there)
		local axes = not e.flows.dynamic_axes and resolved(e.dynamic_node) or nil
		e.dynamic = dynamic_of(axes, e.input_names and e.input_names[1])
		-- dynamic axes ferry cannot read (built by a function, a comprehension): the static
		-- shape below would serve one size only
		e.dynamic_unknown = e.dynamic_node ~= nil and e.dynamic_node.text ~= "None" and not e.dynamic
			and not (axes and axes.type == "dictionary")
		e.training_node = arg_of(a, x.args.training)
		e.training = e.training_node and e.training_node.text or nil
		e.folding_node = arg_of(a, x.args.do_constant_folding)
		e.folding = e.folding_node and e.folding_node.text or nil
		out[#out + 1] = e
	end
	return out
end

-- The calls of method f inside its class, `self.name(...)` or `cls.name(...)`, outside f
-- itself: {path=, node=} in file order.
local function method_callers(ctx, f)
	local q = '((call function: (attribute object: (identifier) @o attribute: (identifier) @f) arguments: (argument_list)) @c (#eq? @f "'
		.. f.name .. '") (#any-of? @o "self" "cls"))'
	local out = {}
	for _i, m in ipairs(ctx.query(f.path, q) or {}) do
		local inside = m.c.start_byte >= f.class.start_byte and m.c.end_byte <= f.class.end_byte
		local recursion = m.c.start_byte >= f.node.start_byte and m.c.end_byte <= f.node.end_byte
		if inside and not recursion then out[#out + 1] = { path = f.path, node = m.c } end
	end
	table.sort(out, function(x, y) return x.node.start_byte < y.node.start_byte end)
	return out
end

-- The calls of the project's function f across the project: {path=, node=} in file order.
-- A call names f bare in its own file (unless an import there binds the name to
-- something else), or through an import of its module elsewhere (`from export import
-- export_onnx`, `import export` then `export.run(...)`, relative imports too); a method's
-- are those of method_callers.
local function callers_of(ctx, f)
	if f.class then return method_callers(ctx, f) end
	local q = '((call function: (identifier) @f arguments: (argument_list)) @c (#eq? @f "' .. f.name .. '"))\n'
		.. '((call function: (attribute attribute: (identifier) @f) arguments: (argument_list)) @c (#eq? @f "' .. f.name .. '"))'
	-- another file reaches f through an import naming its module, whose last part it holds
	local stem = f.path:match("([^/]+)/__init__%.py$") or f.path:match("([^/]+)%.py$")
	local out = {}
	for _i, p in ipairs(ctx.files("%.py$")) do
		if ctx.find(p, f.name) and (p == f.path or ctx.find(p, stem)) then
			local map
			for _j, m in ipairs(ctx.query(p, q) or {}) do
				map = map or py.aliases(ctx, p) or {}
				local d = py.dotted(m.c.text:match("^[^(]*"))
				local full = d and py.expand(map, d)
				local module = full and full:match("^(.*)%.[%a_][%w_]*$")
				local ok
				if d == f.name and not map[d] then
					ok = p == f.path
				elseif module and full:match("[%a_][%w_]*$") == f.name then
					ok = project.module_file(ctx, p, module) == f.path
				end
				-- the definition's own name is no call; a call inside f is a recursion
				if ok and not (p == f.path and m.c.start_byte >= f.node.start_byte and m.c.end_byte <= f.node.end_byte) then
					out[#out + 1] = { path = p, node = m.c }
				end
			end
		end
	end
	return out
end

-- What the argument for parameter `name` of f is at the call {path=, node=}: {node=, path=,
-- how=}, the node being the argument, the parameter's default ("default") or the default
-- of the argparse option of that name reaching f through `f(**vars(args))` ("cli"); nil
-- when the call gives it in a way that cannot be read (through *args, **kwargs).
local function argument(ctx, site, f, name, args_of)
	local a = args_of(site.node)
	if a.kw[name] then return { node = a.kw[name], path = site.path, how = "argument" } end
	local param, pos = nil, 0
	for _i, p in ipairs(f.params) do
		if p.kind == "pos" then pos = pos + 1 end
		if p.name == name then param = p break end
	end
	if not param then return nil end
	local inner = site.node.text:match("%b()") or ""
	local list_splat = inner:find("[(,]%s*%*[^%*]") ~= nil
	if param.kind == "pos" and not list_splat and a.pos[pos] then
		return { node = a.pos[pos], path = site.path, how = "argument" }
	end
	if a.splat then
		-- `run(**vars(opt))`: the command line's options, by their destinations
		if inner:find("%*%*%s*vars%s*%(") then
			local d, option = argparse_default(ctx, site.path, name, args_of)
			if d then return { node = d, path = site.path, how = "cli", option = option } end
		end
		return nil
	end
	if param.default then return { node = param.default, path = f.path, how = "default" } end
	return nil
end

-- "0,2,3" for the set {0, 2, 3}; "" for false.
local function dims_key(set)
	local l = {}
	for d in pairs(set or {}) do l[#l + 1] = d end
	table.sort(l)
	return table.concat(l, ",")
end

-- The value a node holds for a role: an integer's for opset; for dynamic_axes a set of the
-- first input's dynamic dimensions, or false for none (None, False, {}); nil when it is not
-- a literal of the role.
local function literal(role, node, e)
	if role == "opset" then
		return node.type == "integer" and tonumber(node.text) or nil
	elseif role == "file" then
		return node.type == "string" and py.string_value(node.text) or nil
	end
	if node.type == "none" or node.type == "false" then return false end
	if node.type == "dictionary" then
		return dynamic_of(node, e.input_names and e.input_names[1]) or false
	end
	return nil
end

local MAX_DEPTH = 4

-- The whole project's exports, the callers of the functions holding them, and the routes
-- by which callers give them an opset or dynamic axes (see the header).
function export.project(ctx)
	local all = { exports = {}, callers = {}, routes = {} }
	local fns_of, args_of = {}, {}
	local function fns(p)
		fns_of[p] = fns_of[p] or functions(ctx, p)
		return fns_of[p]
	end
	local function args(p)
		args_of[p] = args_of[p] or train.all_call_args(ctx, p)
		return args_of[p]
	end
	for _i, p in ipairs(ctx.files("%.py$")) do
		if ctx.find(p, "onnx") then
			for _j, e in ipairs(export.calls(ctx, p)) do all.exports[#all.exports + 1] = e end
		end
	end
	local callers = {} -- function key -> its calls
	local function calls_of(f)
		local key = f.path .. ":" .. f.node.start_byte
		callers[key] = callers[key] or callers_of(ctx, f)
		return callers[key]
	end
	local seen = {}
	-- follow role from parameter `name` of f up through its callers
	local function follow(e, role, f, name, via, depth)
		local key = role .. "\0" .. f.path .. ":" .. f.node.start_byte .. "\0" .. name
		if seen[key] or depth > MAX_DEPTH then return end
		seen[key] = true
		for _i, site in ipairs(calls_of(f)) do
			local chain = { { path = site.path, node = site.node, name = f.name } }
			for _j, v in ipairs(via) do chain[#chain + 1] = v end
			local got = argument(ctx, site, f, name, args(site.path))
			local node = got and when_set(ctx, got.path, got.node)
			local value = node and literal(role, node, e)
			local how = got and got.how
			-- a name: the caller's own parameter (followed further up), else for the opset a
			-- module constant or an argparse option (`args.opset`) of the caller's file
			local outer, pname
			if value == nil and node and how == "argument" then
				outer = holder(fns(site.path), site.node)
				pname = param_of(ctx, outer, node, site.node.start_byte)
			end
			if value == nil and node and not pname and role == "opset" then
				local v, n, option = opset_source(ctx, got.path, node, args(got.path))
				if v then value, how, node, got.option = v, option and "cli" or "constant", n, option end
			end
			if value ~= nil then
				all.routes[#all.routes + 1] = { export = e, role = role, value = value, node = node, path = got.path,
					how = how, option = got.option, param = name, fn = f, via = chain }
			elseif pname then
				follow(e, role, outer, pname, chain, depth + 1)
			end
		end
		seen[key] = nil
	end
	for _i, e in ipairs(all.exports) do
		if e.fn then
			all.callers[e] = calls_of(e.fn)
			for role, name in pairs(e.flows) do follow(e, role, e.fn, name, {}, 1) end
		end
	end
	table.sort(all.routes, function(x, y)
		if x.path ~= y.path then return x.path < y.path end
		return x.node.start_byte < y.node.start_byte
	end)
	-- the dynamic axes and the file every caller gives alike are the export's own (for its
	-- atc command)
	for _i, e in ipairs(all.exports) do
		for _j, role in ipairs({ "dynamic_axes", "file" }) do
			local agreed, value
			for _k, r in ipairs(e.flows[role] and all.routes or {}) do
				if r.export == e and r.role == role then
					local key = role == "file" and r.value or dims_key(r.value)
					if agreed == nil then agreed, value = key, r.value elseif agreed ~= key then agreed = false end
				end
			end
			if agreed and role == "file" then
				e.file = value
			elseif agreed then
				e.dynamic, e.dynamic_unknown = value or nil, false
			end
		end
	end
	return all
end

-- The atc command converting an export's output for a SoC, and notes for the reader
-- (the dynamic-shape form follows plugins/lib/atc.lua).
function export.atc(ctx, e, soc, model)
	local inputs, notes = {}, {}
	if model then
		inputs = model.onnx.inputs
		local shown = {}
		for i, vi in ipairs(inputs) do shown[i] = atc.input_text(ctx, vi, true) end
		notes[#notes + 1] = _("the inputs are those of the ingested {what}: {inputs}",
			{ what = atc.model_name(model.artifact), inputs = words.join(shown) })
	elseif e.shape and e.input_names then
		local dims = {}
		for i, n in ipairs(e.shape) do
			dims[i] = (e.dynamic and e.dynamic[i - 1]) and -1 or n
		end
		inputs[1] = { name = e.input_names[1], dims = dims }
	end
	local file = e.file or (model and model.onnx.file)
	local cmd, more = atc.command(ctx, { model = file, soc = soc, inputs = inputs,
		placeholder = #inputs == 0 and "<input name>:<dims>" or nil })
	if not file then notes[#notes + 1] = _("replace model.onnx by the file the export writes") end
	if #inputs == 0 then
		notes[#notes + 1] = _("fill in --input_shape with each input's name and sizes (name:d1,d2,…, inputs separated by ';'; input_names= in the export fixes the names), or ingest the model this export writes (`ferry ingest onnx FILE`) and the command takes them from it")
	elseif not model and #e.input_names > 1 then
		notes[#notes + 1] = _("add the shapes of the other inputs ({inputs}) to --input_shape, separated by ';'", { inputs = table.concat(e.input_names, ", ", 2) })
	end
	if e.dynamic_unknown and not model then
		notes[#notes + 1] = _("the export declares dynamic axes ({axes}) that ferry cannot read: mark those dimensions -1 in --input_shape and add --dynamic_batch_size or --dynamic_dims, or the .om serves this one shape only",
			{ axes = e.dynamic_node.text:match("^[^\n]*") })
	end
	for _i, n in ipairs(more) do notes[#notes + 1] = n end
	return cmd, notes, file
end

return export
