-- pyindex: the project's own top-level functions across files, and which of them depend
-- on CUDA — directly (a .cuda() call, a 'cuda' device string, a torch.cuda name in their
-- body) or through the project functions they call, to a fixed point.
--
--   local pyindex = require("pyindex")
--   local ix = pyindex.build(ctx, seeds)   seeds: the files to start from (those that
--                                           mention CUDA); the others are indexed only when
--                                           they mention a dependent function's name
--   ix.dependent     list of functions that depend on CUDA, each
--                    {key=, name=, path=, node=(the name), why={line=, text=}, via=(the
--                    function whose call makes it dependent, or nil), roots=(every CUDA
--                    site it reaches, directly or through the dependent project functions
--                    it calls: a list of {path=, node=})}
--   ix.calls         list of call sites of dependent functions:
--                    {path=, node=(the call), target=(a dependent function), caller=(key or nil)}
--
-- A function whose body mentions the NPU is accelerator-aware: it is neither dependent nor
-- made dependent by what it calls.
--
-- A CUDA name in the condition of a branch that only raises (`if not
-- torch.cuda.is_available(): raise ValueError(...)`) guards a CUDA-only mode and is not a
-- dependence, nor is a site in a block importing a deployment target for NVIDIA GPUs
-- (cuda.gpu_target_block: a TensorRT backend), nor is a 'cuda' among other names in a list, tuple or set (a table of
-- supported devices) or a folder in a path (cuda.path_strings); a 'cuda' parameter default is a dependence only of the calls that leave the
-- parameter out.
--
-- Calls are resolved through imports (`from pkg.utils import f`, `import pkg.utils as u;
-- u.f()`, relative imports) and through re-exports (`from .utils import f` in a package's
-- __init__.py); a name the project does not define is not followed. Methods of top-level
-- classes are indexed as "Class.method": a call through `self` inside the class follows
-- the method, and constructing the class (`Runner(cfg)`, here or through an import)
-- follows its __init__. Nested functions and calls through other variables
-- (`r = Runner(); r.step()`) are not followed.

local py = require("py")
local refs = require("refs")
local cuda = require("cuda")
local train = require("train")

local pyindex = {}

-- Every CUDA site a dependent function reaches, each {path=, node=} once, in the order met:
-- its own, then those of the dependent project functions it calls, to any depth.
local function roots_of(fn)
	local out, seen, walked = {}, {}, {}
	local function walk(g)
		if walked[g] then return end
		walked[g] = true
		for _i, s in ipairs(g.sites or {}) do
			local k = s.path .. ":" .. s.node.start_byte
			if not seen[k] then
				seen[k] = true
				out[#out + 1] = s
			end
		end
		for _i, c in ipairs(g.callees or {}) do walk(c) end
	end
	walk(fn)
	return out
end

local DEFS = [[
(module (function_definition name: (identifier) @n parameters: (parameters) @ps) @def)
(module (decorated_definition definition: (function_definition name: (identifier) @n parameters: (parameters) @ps) @def))
]]
-- methods of top-level classes (decorated or not, in classes decorated or not)
local METHODS = [[
(module (class_definition name: (identifier) @cls body: (block (function_definition name: (identifier) @n parameters: (parameters) @ps) @def)))
(module (class_definition name: (identifier) @cls body: (block (decorated_definition definition: (function_definition name: (identifier) @n parameters: (parameters) @ps) @def))))
(module (decorated_definition definition: (class_definition name: (identifier) @cls body: (block (function_definition name: (identifier) @n parameters: (parameters) @ps) @def))))
(module (decorated_definition definition: (class_definition name: (identifier) @cls body: (block (decorated_definition definition: (function_definition name: (identifier) @n parameters: (parameters) @ps) @def)))))
]]
local CMP_STRINGS = [[
(comparison_operator (string) @s)
(comparison_operator (tuple (string) @s))
(comparison_operator (list (string) @s))
(comparison_operator (set (string) @s))
]]
-- strings given to a text method (`device.replace("cuda:", "")`, `.startswith("cuda")`)
-- read the name a user typed: the code parses a device, it does not pick one
local PARSED_STRINGS = [[
(call function: (attribute attribute: (identifier) @m) arguments: (argument_list . (string) @s)
 (#match? @m "^(replace|startswith|endswith|split|rsplit|partition|rpartition|removeprefix|removesuffix|find|rfind|index|count|strip|lstrip|rstrip)$"))
]]
local SITES = [[
((string (string_content) @c) @s (#match? @c "^cuda(:[0-9]*)?$"))
((attribute object: (attribute object: (identifier) @t attribute: (identifier) @u) attribute: (identifier)) @a (#eq? @t "torch") (#eq? @u "cuda"))
]]
-- conditions of branches that only refuse: `if not torch.cuda.is_available(): raise ...`
-- guards a CUDA-only mode, the code around it does not need CUDA
local GUARDS = [[
(if_statement condition: (_) @cond consequence: (block . (raise_statement) .))
(elif_clause condition: (_) @cond consequence: (block . (raise_statement) .))
]]
-- collections of several names (["cuda", "xpu", "hpu"], choices=("cuda", "cpu")): a
-- table of what is supported or allowed, not a device the code picks
local NAME_LISTS = [[
(list (string) (string)) @cond
(tuple (string) (string)) @cond
(set (string) (string)) @cond
]]
-- a function's parameters in order, with the name of those that have one
local PARAMS = [[
(parameters (identifier) @n @p)
(parameters (default_parameter name: (identifier) @n) @p)
(parameters (typed_parameter . (identifier) @n) @p)
(parameters (typed_default_parameter name: (identifier) @n) @p)
(parameters (list_splat_pattern) @p)
(parameters (dictionary_splat_pattern) @p)
(parameters (keyword_separator) @p)
(parameters (positional_separator) @p)
]]
local CALLS = [[
(call function: (identifier) @f) @c
(call function: (attribute object: (identifier) @o attribute: (identifier) @f)) @c
]]

-- A node's text on one line, cut to a length a message can quote.
local function short(text)
	local t = text:gsub("%s+", " ")
	return #t > 80 and t:sub(1, 77) .. "..." or t
end

-- "pkg/utils.py" -> "pkg.utils"; "pkg/__init__.py" -> "pkg".
local function module_of(path)
	local m = path:gsub("%.py$", ""):gsub("/", ".")
	return (m:gsub("%.__init__$", ""))
end

-- A relative module (".utils", "..core.x") from the module that imports it.
local function absolute(module, from, is_package)
	local dots, rest = module:match("^(%.+)(.*)$")
	if not dots then return module end
	local base = from
	if not is_package then base = base:match("^(.*)%.[^.]+$") or "" end
	for _i = 2, #dots do base = base:match("^(.*)%.[^.]+$") or "" end
	if rest == "" then return base end
	return base == "" and rest or base .. "." .. rest
end

function pyindex.build(ctx, seeds)
	local modules = {} -- module name -> path
	local all = ctx.files("%.py$")
	for _i, path in ipairs(all) do modules[module_of(path)] = path end

	local files = {}   -- path -> {funcs = {name -> fn}, imports = {bound -> full}, calls = {...}}
	local funcs = {}   -- key -> fn
	-- a file's definitions: its imports and top-level functions (what resolving a call
	-- into it needs)
	local function defs(path)
		if files[path] then return files[path] end
		local f = { funcs = {}, imports = {}, calls = {}, module = module_of(path) }
		files[path] = f
		local is_package = path:match("__init__%.py$") ~= nil
		for _i, imp in ipairs(py.imports(ctx, path) or {}) do
			if imp.bound and imp.full then
				f.imports[imp.bound] = absolute(imp.full, f.module, is_package)
			elseif imp.bound then
				f.imports[imp.bound] = absolute(imp.module, f.module, is_package)
			end
		end
		-- only positions and short texts are kept: an index of a large project must fit in
		-- the plugin's memory
		for _i, m in ipairs(ctx.query(path, DEFS) or {}) do
			local fn = { key = f.module .. ":" .. m.n.text, name = m.n.text, path = path, node = m.n,
				s = m.def.start_byte, e = m.def.end_byte, ps = m.ps.start_byte, pe = m.ps.end_byte }
			f.funcs[fn.name] = fn
			funcs[fn.key] = fn
		end
		-- a method is indexed as "Class.method"; constructing the class runs its __init__,
		-- so f.classes maps a class name to that method (false when it has none)
		f.classes = {}
		for _i, m in ipairs(ctx.query(path, METHODS) or {}) do
			local cls = m.cls.text
			local name = cls .. "." .. m.n.text
			local fn = { key = f.module .. ":" .. name, name = name, cls = cls, path = path, node = m.n,
				s = m.def.start_byte, e = m.def.end_byte, ps = m.ps.start_byte, pe = m.ps.end_byte }
			f.funcs[name] = fn
			funcs[fn.key] = fn
			if m.n.text == "__init__" then f.classes[cls] = fn
			elseif f.classes[cls] == nil then f.classes[cls] = false end
		end
		-- a function that already handles the NPU (an 'npu' branch beside the 'cuda' one,
		-- torch.npu, is_torch_npu_available) is accelerator-aware, not CUDA-dependent, and
		-- stops the dependence of its callers
		local npu = ctx.find(path, "npu") ~= nil
		for _i, fn in pairs(f.funcs) do
			fn.aware = npu and ctx.find(path, "npu", fn.s, fn.e) ~= nil
		end
		return f
	end
	-- the whole index of a file: its definitions, the CUDA sites in its functions, and its
	-- calls that can name a project function
	local function index(path)
		local f = defs(path)
		if f.full then return f end
		f.full = true
		-- the indexed functions do not nest (top-level functions, methods of top-level
		-- classes), so the one holding a node is the last that starts at or before it
		local by_start = {}
		for _i, fn in pairs(f.funcs) do by_start[#by_start + 1] = fn end
		table.sort(by_start, function(a, b) return a.s < b.s end)
		local function owner(node)
			local lo, hi, at = 1, #by_start, nil
			while lo <= hi do
				local mid = (lo + hi) // 2
				if by_start[mid].s <= node.start_byte then at, lo = by_start[mid], mid + 1 else hi = mid - 1 end
			end
			if at and node.end_byte <= at.e then return at end
			return nil
		end
		-- direct dependence: the first CUDA site in the function's body — a .cuda() call, a
		-- torch.cuda name, or a 'cuda' device string that is not compared with (x.type ==
		-- "cuda", in ("cuda", "mps") branch on the device the code was given). Narrow
		-- queries: the index runs on every file that mentions CUDA.
		local sites = {}
		for _i, s in ipairs(cuda.cuda_calls(ctx, path)) do sites[#sites + 1] = s.node end
		local compared, paths = {}, nil
		for _i, m in ipairs(ctx.query(path, CMP_STRINGS) or {}) do compared[m.s.start_byte] = true end
		for _i, m in ipairs(ctx.query(path, PARSED_STRINGS) or {}) do compared[m.s.start_byte] = true end
		for _i, m in ipairs(ctx.query(path, SITES) or {}) do
			local n = m.s or m.a
			-- a 'cuda' folder in a path (`pjoin(home, 'cuda', 'bin')`) names the toolkit, not a device
			if m.s and not paths then paths = cuda.path_strings(ctx, path, refs.aliases(ctx, path)) end
			if m.a or (not compared[n.start_byte] and not paths[n.start_byte] and cuda.device_string((refs.string_inner(n)))) then
				sites[#sites + 1] = n
			end
		end
		local guards = #sites > 0 and ctx.query(path, GUARDS) or {}
		for _i, m in ipairs(#sites > 0 and ctx.query(path, NAME_LISTS) or {}) do guards[#guards + 1] = m end
		local function guarding(node)
			for _i, g in ipairs(guards) do
				if g.cond.start_byte <= node.start_byte and node.end_byte <= g.cond.end_byte then return true end
			end
			return false
		end
		-- nor is a site in the branch of a deployment target for NVIDIA GPUs (yolov5's TensorRT
		-- backend picking "cuda:0"): that path does not apply on an Ascend host
		local kept = {}
		for _i, node in ipairs(sites) do
			if not guarding(node) and not cuda.gpu_target_block(ctx, path, node.start_byte) then kept[#kept + 1] = node end
		end
		sites = kept
		table.sort(sites, function(a, b) return a.start_byte < b.start_byte end)
		-- a site in a parameter's default value (`device='cuda'`) makes the function depend
		-- on CUDA only for the calls that leave that parameter out; a site in the body, for
		-- every call
		local params
		local function param_at(fn, at)
			params = params or ctx.query(path, PARAMS) or {}
			local pos, kw_only = 0, false
			for _i, m in ipairs(params) do
				local p = m.p
				if p.start_byte >= fn.ps and p.end_byte <= fn.pe then
					if p.type == "list_splat_pattern" or p.type == "keyword_separator" then kw_only = true end
					if m.n then pos = pos + 1 end
					if p.start_byte <= at and at < p.end_byte then
						-- `self` is never passed by the caller of a method or a constructor
						local shift = fn.cls and 1 or 0
						return m.n and m.n.text, (not kw_only and m.n) and pos - shift or nil, p.text
					end
				end
			end
			return nil
		end
		for _i, node in ipairs(sites) do
			local fn = owner(node)
			if fn and not fn.aware then
				fn.sites = fn.sites or {}
				fn.sites[#fn.sites + 1] = { path = path, node = node }
			end
			if fn and not fn.why and not fn.aware then
				local why = { line = node.line, text = short(node.text) }
				if node.start_byte >= fn.ps and node.end_byte <= fn.pe then
					local text
					why.param, why.pos, text = param_at(fn, node.start_byte)
					-- quoted as the parameter (`device="cuda"`): the default is what depends
					if why.param then
						why.text = short(text)
						fn.cond = fn.cond or why
					else
						fn.why = why
					end
				else
					fn.why = why
				end
			end
		end
		for _i, fn in pairs(f.funcs) do
			if not fn.why and fn.cond then fn.why, fn.cond = fn.cond, nil end
		end
		-- only calls that can name a project function: of a function or class of this file,
		-- a method through `self` in its own class, or through an import of a project module
		local function project_module(full)
			return full and modules[full] ~= nil
		end
		for _i, m in ipairs(ctx.query(path, CALLS) or {}) do
			local name, object = m.f.text, m.o and m.o.text
			local c = m.c
			local caller = owner(c)
			local keep
			if object == "self" then
				keep = caller and caller.cls and f.funcs[caller.cls .. "." .. name]
				if keep then name, object = caller.cls .. "." .. name, nil end
			elseif object then
				keep = project_module(f.imports[object])
			else
				local full = f.imports[name]
				keep = f.funcs[name] or f.classes[name] or (full and project_module(full:match("^(.*)%.[^.]+$")))
			end
			if keep then
				f.calls[#f.calls + 1] = { name = name, object = object, caller = caller,
					node = { text = short(c.text), type = c.type, start_byte = c.start_byte, end_byte = c.end_byte,
						line = c.line, col = c.col, end_line = c.end_line, end_col = c.end_col } }
			end
		end
		return f
	end

	-- the function (or the class's __init__) a name of file f stands for, following its
	-- imports and re-exports; depth counts the modules followed so far
	local resolve
	-- the module and name an imported name of f stands for (`from a.b import c`: "a.b", "c")
	local function imported(f, name)
		local full = f.imports[name]
		if not full then return nil end
		return full:match("^(.*)%.([^.]+)$")
	end
	local function lookup(f, name, depth)
		if f.funcs[name] then return f.funcs[name] end
		if f.classes[name] ~= nil then return f.classes[name] or nil end
		local mod, last = imported(f, name)
		return mod and resolve(mod, last, depth) or nil
	end
	-- the function a module-qualified name stands for
	resolve = function(module, name, depth)
		local path = depth <= 8 and modules[module]
		return path and lookup(defs(path), name, depth + 1) or nil
	end
	-- the module target_of looks a call's target up in first, or nil (f's own, or none)
	local function target_module(f, call)
		if call.object then return f.imports[call.object] end
		if f.funcs[call.name] or f.classes[call.name] ~= nil then return nil end
		return (imported(f, call.name))
	end
	-- the project function a call in file f names, or nil
	local function target_of(f, call)
		if call.object then
			local mod = f.imports[call.object]
			return mod and resolve(mod, call.name, 0)
		end
		return lookup(f, call.name, 0)
	end
	-- whether a call passes the parameter whose default makes its target depend on CUDA
	-- (by keyword, by position, or maybe through *args/**kwargs): then it does not depend
	local function passes(path, f, call, why)
		f.args = f.args or train.all_call_args(ctx, path)
		local a = f.args(call.node)
		return a.splat or a.kw[why.param] ~= nil or (why.pos ~= nil and #a.pos >= why.pos)
	end
	-- the dependent function a call makes its caller depend on, or nil
	local function depends_on(path, f, call)
		local t = call.target
		if not (t and t.why) then return nil end
		if t.why.param and passes(path, f, call, t.why) then return nil end
		return t
	end

	-- every dependent project function a function calls, each once
	local function add_callee(fn, t)
		fn.callees = fn.callees or {}
		if not fn.callees[t] then
			fn.callees[t] = true
			fn.callees[#fn.callees + 1] = t
		end
	end

	-- The seeds are indexed in the files' order, with the other checks. The modules their
	-- calls name are read for their definitions on the way, once the walk is at or past
	-- them (a query ahead of the walk would pull this check away from the others): a tree
	-- the others still hold is shared, and what is read again is read while they run,
	-- not alone at the end.
	local at = {}
	for i, path in ipairs(all) do at[path] = i end
	local named, nnamed = {}, 0 -- path -> true: modules named by indexed calls, not read yet
	for _i, path in ipairs(seeds) do
		local here = at[path] or 0
		if nnamed > 0 then
			local due = {}
			for m in pairs(named) do
				if at[m] <= here then due[#due + 1] = m end
			end
			table.sort(due, function(a, b) return at[a] < at[b] end)
			for _j, m in ipairs(due) do
				named[m], nnamed = nil, nnamed - 1
				defs(m)
			end
		end
		local f = index(path)
		for _j, call in ipairs(f.calls) do
			local full = target_module(f, call)
			local m = full and modules[full]
			if m and not files[m] and not named[m] then named[m], nnamed = true, nnamed + 1 end
		end
	end
	-- a function that calls a dependent one depends on it, to a fixed point; a file not yet
	-- indexed is indexed when it can call a function that became dependent: it names the
	-- function and a module it can be imported from (the module that defines it, or one
	-- that re-exports it, by its last component: `from pkg.utils import f`, `utils.f()`,
	-- `from .utils import f`), or it sits in the same top folder and imports relatively.
	-- Names alone woke most of a large project: scripts' own `main`, `run` and `parse_args`
	-- became dependent, and nearly every file says "main".
	local searched, unread = {}, {}
	for _i, path in ipairs(all) do unread[path] = true end
	local function drop_indexed()
		for path, f in pairs(files) do
			if f.full then unread[path] = nil end
		end
	end
	drop_indexed()
	local function last(module) return module:match("([^.]+)$") or module end
	-- the name another file calls fn by: a method is called from another file only by
	-- constructing its class, when it is __init__ (other methods are reached through
	-- `self` in their own file)
	local function callable_as(fn)
		if not fn.cls then return fn.name end
		return fn.name == fn.cls .. ".__init__" and fn.cls or nil
	end
	local function top(path) return path:match("^([^/]+)/") end
	while true do
		-- the files in path order, so that the call a function is said to depend through is
		-- the same in every run
		local order = {}
		for path in pairs(files) do order[#order + 1] = path end
		table.sort(order)
		-- the modules the calls' targets are looked up in, parsed ahead on a free core when
		-- not indexed yet (found through imports, they are often files the other checks
		-- left long ago)
		local modules_ahead, seen = {}, {}
		for _k, path in ipairs(order) do
			local f = files[path]
			for _i, call in ipairs(f.calls) do
				if call.target == nil then
					local full = target_module(f, call)
					local m = full and modules[full]
					if m and not files[m] and not seen[m] then
						seen[m] = true
						modules_ahead[#modules_ahead + 1] = m
					end
				end
			end
		end
		ctx.prefetch(modules_ahead)
		local progress = true
		while progress do
			progress = false
			for _k, path in ipairs(order) do
				local f = files[path]
				for _i, call in ipairs(f.calls) do
					if call.target == nil then call.target = target_of(f, call) or false end
					local t = depends_on(path, f, call)
					if t and call.caller and not call.caller.aware and call.caller ~= t then
						add_callee(call.caller, t)
					end
					if t and call.caller and not call.caller.why and not call.caller.aware and call.caller ~= t then
						call.caller.why = { line = call.node.line, text = call.node.text }
						call.caller.via = t
						progress = true
					end
				end
			end
		end
		-- what to look for: (name, module word, top folder) not searched before, from the
		-- dependent functions' own modules and the indexed modules that import them
		local wanted = {}
		local function want(fn, module, path)
			local k = fn.key .. " " .. module
			if callable_as(fn) and not searched[k] then
				searched[k] = true
				wanted[#wanted + 1] = { name = callable_as(fn), word = last(module), top = top(path) }
			end
		end
		local dependent = {}
		for _i, fn in pairs(funcs) do
			if fn.why then
				if callable_as(fn) then dependent[callable_as(fn)] = true end
				want(fn, module_of(fn.path), fn.path)
			end
		end
		for path, f in pairs(files) do
			for bound, full in pairs(f.imports) do
				local mod, name = full:match("^(.*)%.([^.]+)$")
				local fn = mod and dependent[bound] and resolve(mod, name, 0)
				if fn and fn.why and bound == callable_as(fn) then want(fn, f.module, path) end
			end
		end
		-- one pass over each unread file's identifiers per round, in C (a search per wanted
		-- name read every file once per name: Megatron-LM's hundreds of names ran the check
		-- out of its budget)
		local by_name = {}
		for _i, w in ipairs(wanted) do
			by_name[w.name] = by_name[w.name] or {}
			table.insert(by_name[w.name], w)
		end
		-- the file's text is taken into Lua only when it names a wanted function (few do)
		local function can_call(path)
			local ids = ctx.find_names(path, by_name)
			local text = ids and #ids > 0 and ctx.read(path)
			if not text then return false end
			local relative = text:find("from .", 1, true)
			for _i, id in ipairs(ids) do
				for _j, w in ipairs(by_name[id]) do
					if text:find(w.word, 1, true) or (relative and w.top and top(path) == w.top) then return true end
				end
			end
			return false
		end
		-- the files to index are known before the first is parsed: the host parses them
		-- ahead on a free core (the other checks are often done by now)
		local callers = {}
		for _i, path in ipairs(#wanted > 0 and all or {}) do
			if unread[path] and can_call(path) then callers[#callers + 1] = path end
		end
		ctx.prefetch(callers)
		for _i, path in ipairs(callers) do
			index(path)
			unread[path] = nil
		end
		drop_indexed()
		if #callers == 0 then break end
	end

	local ix = { dependent = {}, calls = {} }
	for _i, fn in pairs(funcs) do
		if fn.why then
			fn.roots = roots_of(fn)
			ix.dependent[#ix.dependent + 1] = fn
		end
	end
	table.sort(ix.dependent, function(a, b) return a.key < b.key end)
	for path, f in pairs(files) do
		for _i, call in ipairs(f.calls) do
			if depends_on(path, f, call) and call.target ~= call.caller then
				ix.calls[#ix.calls + 1] = { path = path, node = call.node, target = call.target,
					caller = call.caller and call.caller.key }
			end
		end
	end
	table.sort(ix.calls, function(a, b)
		if a.path ~= b.path then return a.path < b.path end
		return a.node.start_byte < b.node.start_byte
	end)
	return ix
end

return pyindex
