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
--                    function whose call makes it dependent, or nil)}
--   ix.calls         list of call sites of dependent functions:
--                    {path=, node=(the call), target=(a dependent function), caller=(key or nil)}
--
-- Calls are resolved through imports (`from pkg.utils import f`, `import pkg.utils as u;
-- u.f()`, relative imports) and through re-exports (`from .utils import f` in a package's
-- __init__.py); a name the project does not define is not followed. Methods, nested
-- functions and calls through variables are not followed.

local py = require("py")
local refs = require("refs")
local cuda = require("cuda")

local pyindex = {}

local DEFS = [[
(module (function_definition name: (identifier) @n) @def)
(module (decorated_definition definition: (function_definition name: (identifier) @n) @def))
]]
local CALLS = [[
(call function: (identifier) @f) @c
(call function: (attribute object: (identifier) @o attribute: (identifier) @f)) @c
]]

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
	local function index(path)
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
		for _i, m in ipairs(ctx.query(path, DEFS) or {}) do
			local fn = { key = f.module .. ":" .. m.n.text, name = m.n.text, path = path, node = m.n, def = m.def }
			f.funcs[fn.name] = fn
			funcs[fn.key] = fn
		end
		local function owner(node)
			for _i, fn in pairs(f.funcs) do
				if fn.def.start_byte <= node.start_byte and node.end_byte <= fn.def.end_byte then return fn end
			end
			return nil
		end
		-- direct dependence: the first CUDA site in the function's body
		local sites = {}
		for _i, s in ipairs(cuda.cuda_calls(ctx, path)) do sites[#sites + 1] = s.node end
		for _i, s in ipairs(py.strings(ctx, path) or {}) do
			if cuda.device_string((refs.string_inner(s.node))) then sites[#sites + 1] = s.node end
		end
		for _i, d in ipairs(refs.dotted(ctx, path, refs.aliases(ctx, path))) do
			if d.resolved:match("^torch%.cuda%.") then sites[#sites + 1] = d.node end
		end
		table.sort(sites, function(a, b) return a.start_byte < b.start_byte end)
		for _i, node in ipairs(sites) do
			local fn = owner(node)
			if fn and not fn.why then fn.why = { line = node.line, text = (node.text:gsub("%s+", " ")) } end
		end
		for _i, m in ipairs(ctx.query(path, CALLS) or {}) do
			local fn = owner(m.c)
			f.calls[#f.calls + 1] = { node = m.c, name = m.f.text, object = m.o and m.o.text, caller = fn }
		end
		return f
	end

	-- the function a module-qualified name stands for, following re-exports
	local function resolve(module, name, depth)
		if depth > 8 then return nil end
		local path = modules[module]
		if not path then return nil end
		local f = index(path)
		if f.funcs[name] then return f.funcs[name] end
		local full = f.imports[name]
		if full then
			local mod, last = full:match("^(.*)%.([^.]+)$")
			if mod then return resolve(mod, last, depth + 1) end
		end
		return nil
	end
	-- the project function a call in file f names, or nil
	local function target_of(f, call)
		if call.object then
			local mod = f.imports[call.object]
			return mod and resolve(mod, call.name, 0)
		end
		if f.funcs[call.name] then return f.funcs[call.name] end
		local full = f.imports[call.name]
		if full then
			local mod, last = full:match("^(.*)%.([^.]+)$")
			if mod then return resolve(mod, last, 0) end
		end
		return nil
	end

	for _i, path in ipairs(seeds) do index(path) end
	-- a function that calls a dependent one depends on it, to a fixed point; a file not yet
	-- indexed is indexed when it mentions the name of a function that became dependent
	local searched, unread = {}, {}
	for _i, path in ipairs(all) do unread[path] = true end
	for path in pairs(files) do unread[path] = nil end
	while true do
		local progress = true
		while progress do
			progress = false
			for _path, f in pairs(files) do
				for _i, call in ipairs(f.calls) do
					if call.target == nil then call.target = target_of(f, call) or false end
					local t = call.target
					if t and t.why and call.caller and not call.caller.why and call.caller ~= t then
						call.caller.why = { line = call.node.line, text = (call.node.text:gsub("%s+", " ")) }
						call.caller.via = t
						progress = true
					end
				end
			end
		end
		local names = {}
		for _i, fn in pairs(funcs) do
			if fn.why and not searched[fn.key] then
				searched[fn.key] = true
				names[#names + 1] = fn.name
			end
		end
		local grew = false
		for _i, path in ipairs(all) do
			if unread[path] and #names > 0 then
				local text = ctx.read(path)
				for _j, n in ipairs(text and names or {}) do
					if text:find(n, 1, true) then
						index(path)
						unread[path] = nil
						grew = true
						break
					end
				end
			end
		end
		for path in pairs(files) do unread[path] = nil end
		if not grew then break end
	end

	local ix = { dependent = {}, calls = {} }
	for _i, fn in pairs(funcs) do
		if fn.why then ix.dependent[#ix.dependent + 1] = fn end
	end
	table.sort(ix.dependent, function(a, b) return a.key < b.key end)
	for path, f in pairs(files) do
		for _i, call in ipairs(f.calls) do
			if call.target and call.target.why and call.target ~= call.caller then
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
