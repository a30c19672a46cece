-- guard: what the try/except around an import does where the import fails, so that every
-- check judging a guarded import (assess.gpu_libraries, environment.apex) follows one rule
-- of when a guard is a fallback.
--
--   local guard = require("guard")
--   local judge = guard.judge(ctx)
--   local v = judge:verdict(path, node, top, imports)
--
-- node is an import statement of path, top the library it imports (its first dotted part)
-- and imports py.imports(ctx, path). The verdict is nil when no try holds the import, else
-- a table whose kind says what happens where the library is missing:
--   "fallback"    a handler catches the failed import (ImportError, ModuleNotFoundError,
--                 Exception or a bare except) and goes on without the library;
--                 fallback_install: the call that installs what it falls back to, or nil
--   "reinstalls"  that handler installs packages at run time (install: the call) or imports
--                 the library again (again: the import), so the code needs it all the same
--   "raises"      the handler catching the failed import raises (`raise ImportError(...)`)
--   "uncaught"    the try's handlers catch something else (catches: `KeyError`)
-- with handler (the except clause: body = the try's block, exc = the clause, caught =
-- "except ImportError") and, for "uncaught", catches. A call installs when it is a library
-- installer of data/installers.json (ultralytics' check_requirements), runs pip itself
-- (`subprocess`/`os.system` with a `pip install` command, `pip.main`), or calls a function of
-- the project that does either (yolov5's check_requirements), two calls deep at most.

local project = require("project")
local py = require("py")

local guard = {}

local TRY = "(try_statement body: (block) @body (except_clause) @exc)"
local CALLS = "(call function: (_) @f arguments: (argument_list)) @c"

-- The first line of an except clause (its text holds the handler's whole body), at most
-- 200 characters.
local function first_line(exc)
	return exc.text:sub(1, (exc.text:find("\n", 1, true) or 201) - 1):sub(1, 200)
end

-- What an except clause's head catches when an import fails: "" for a bare except,
-- "ModuleNotFoundError", "ImportError" or "Exception", or nil when it catches none of them.
local function import_failure(head)
	return head == "" and "" or head:match("ModuleNotFoundError") or head:match("ImportError")
		or head:match("^%(?%s*Exception[%s,)]") and "Exception" or head:match("^Exception$") and "Exception"
end

-- Whether the handler's first statement raises (`raise`, `raise X(...)`).
local function raises(exc, first)
	local colon = first:find(":", 1, true)
	local rest = colon and first:sub(colon + 1):gsub("^%s+", ""):gsub("^#.*", "") or ""
	if rest == "" then
		local after = exc.text:sub(#first + 2, #first + 201)
		rest = after:match("^%s*([^\n]*)") or ""
	end
	return rest == "raise" or rest:match("^raise[%s(]") ~= nil
end

-- Every except clause of the file's try statements, in source order: {body=, exc=, catches=
-- (the head's text: "KeyError", "" for a bare except), caught= ("except ImportError", or nil
-- when it catches no failed import), raises=}.
local function handlers(ctx, path)
	local out = {}
	for _i, m in ipairs(ctx.query(path, TRY) or {}) do
		local first = first_line(m.exc)
		local head = (first:match("^except%s*([^:]*)") or ""):gsub("%s+$", "")
		local caught = import_failure(head)
		out[#out + 1] = { body = m.body, exc = m.exc, raises = raises(m.exc, first),
			catches = head:gsub("%s+as%s+[%a_][%w_]*$", ""),
			caught = caught and (caught == "" and "except" or "except " .. caught) or nil }
	end
	return out
end

-- Whether node lies inside the try block of handler h.
local function holds(h, node)
	return h.body.start_byte <= node.start_byte and node.end_byte <= h.body.end_byte
end

-- Whether the text of a call runs pip to install packages.
local function runs_pip(text)
	local pip = text:find("pip[\"']?%s*,?%s*[\"']?install") or text:find("pip%.main%s*%(")
	return pip ~= nil and (text:find("subprocess", 1, true) or text:find("os%.system") or text:find("os%.popen")
		or text:find("pip%.main")) ~= nil
end

local Judge = {}
Judge.__index = Judge

-- A judge of guarded imports for one plugin run: it reads data/installers.json once and
-- remembers which functions of the project install packages.
function guard.judge(ctx)
	local installers = {}
	for _i, x in ipairs(ctx.data("installers").entries) do installers[x.name] = true end
	return setmetatable({ ctx = ctx, installers = installers, installing = {} }, Judge)
end

-- The except clauses of path (kept for the file last asked about).
function Judge:handlers(path)
	if self.path ~= path then self.path, self.list = path, handlers(self.ctx, path) end
	return self.list
end

-- Whether the function a call in path names (its dotted callee) installs packages.
function Judge:names_installer(path, dotted, depth)
	local ctx = self.ctx
	local full = py.expand(py.aliases(ctx, path) or {}, dotted)
	if self.installers[full] then return true end
	if depth > 2 then return false end
	local file, name
	if full == dotted and not dotted:find(".", 1, true) then
		file, name = path, dotted
	else
		local module
		module, name = full:match("^(.*)%.([%a_][%w_]*)$")
		file = module and project.module_file(ctx, path, module)
	end
	if not file then return false end
	local key = file .. "\0" .. name
	if self.installing[key] == nil then
		self.installing[key] = false
		local q = '((function_definition name: (identifier) @n body: (block) @b) (#eq? @n "' .. name .. '"))'
		for _i, m in ipairs(ctx.query(file, q) or {}) do
			self.installing[key] = self.installing[key] or self:installs(file, m.b, depth + 1) ~= nil
		end
	end
	return self.installing[key]
end

-- The first call in node (a handler, a function's body) that installs packages, or nil.
function Judge:installs(path, node, depth)
	for _i, m in ipairs(self.ctx.query(path, CALLS) or {}) do
		if m.c.start_byte >= node.start_byte and m.c.end_byte <= node.end_byte then
			local dotted = py.dotted(m.f.text)
			if runs_pip(m.c.text) or (dotted and self:names_installer(path, dotted, depth)) then return m.c end
		end
	end
	return nil
end

-- Whether node, inside handler h, is itself held by a try nested in h whose handler falls
-- back where the import fails (Megatron-LM's `except: try: from te... import X except: ...`).
function Judge:guarded_within(path, h, node)
	for _i, inner in ipairs(self:handlers(path)) do
		if inner ~= h and inner.caught and not inner.raises and holds(inner, node)
			and inner.body.start_byte >= h.exc.start_byte and inner.body.end_byte <= h.exc.end_byte then
			return true
		end
	end
	return false
end

-- What handler h does: the import of library top again and a call that installs packages
-- (each a node or nil), and whether it imports something else (a fallback module, perhaps
-- installed first). An import of top that a try inside the handler guards in turn is a
-- second attempt with its own fallback, not a need for the library.
function Judge:handled(path, h, top, imports)
	local again, other_import
	for _i, other in ipairs(imports) do
		if other.node.start_byte >= h.exc.start_byte and other.node.end_byte <= h.exc.end_byte then
			if other.module:match("^[%a_][%w_]*") == top then
				if not self:guarded_within(path, h, other.node) then again = again or other.node end
			else
				other_import = true
			end
		end
	end
	return again, self:installs(path, h.exc, 1), other_import
end

-- The verdict on a catching handler h (see the head of this file): a handler that installs
-- another package and imports that is a fallback, installed at run time.
function Judge:caught(path, h, top, imports)
	local again, install, other_import = self:handled(path, h, top, imports)
	if install and not again and other_import then
		return { kind = "fallback", handler = h, fallback_install = install }
	end
	if again or install then return { kind = "reinstalls", handler = h, again = again, install = install } end
	return { kind = "fallback", handler = h }
end

-- The verdict on the guard of the import statement node (see the head of this file), or nil.
function Judge:verdict(path, node, top, imports)
	local list = self:handlers(path)
	for _i, h in ipairs(list) do
		if h.caught and not h.raises and holds(h, node) then return self:caught(path, h, top, imports) end
	end
	local other
	for _i, h in ipairs(list) do
		if holds(h, node) then
			if h.caught then return { kind = "raises", handler = h } end
			if not other or other.body.start_byte < h.body.start_byte then other = h end
		end
	end
	return other and { kind = "uncaught", handler = other, catches = other.catches } or nil
end

return guard
