-- assess.python2: files written in Python 2, which no PyTorch of the NPU era runs.
--
-- The Python grammar ferry parses with accepts Python 2's statements (print, exec), so such
-- a file raises no syntax-error finding, and every other check reads it as if it ran. On
-- Python 3 it stops with a SyntaxError at import. Other Python 2 code parses under Python 3
-- and fails only when it runs: dict.iteritems() and has_key(), xrange(), unicode(), the
-- modules Python 3 renamed (cPickle, urllib2, Queue ...). Those are found too, except
-- where the project binds the name itself (`from six.moves import xrange`, `unicode = str`,
-- an import under `try: ... except ImportError` or `if sys.version_info ...`, a class of its
-- own defining has_key). Python 2's implicit relative imports are found too: a top-level
-- `import b` or `from b import x` in a module of a package whose folder holds b (b.py, b.pyx
-- or b/__init__.py). Python 3's imports are absolute (PEP 328), so it looks for a top-level
-- b and stops with ModuleNotFoundError; 2to3's `import` fixer writes `from . import b`.
-- They are left alone in a project without any other Python 2 construct (Python 3 code may
-- import an installed b beside a folder named b), in a file that says `from __future__
-- import absolute_import`, where the project root holds a b too (Python 3 finds that one),
-- where the project puts a folder on sys.path inside the package or naming it (the package
-- may be on the path then), and inside a block (`try: import b`). One finding per file, at
-- its first construct that is a syntax
-- error (else at its first run-time one), with how many of each kind the file holds: the
-- work is porting the file, not each line.

-- The constructs, in the order the counts are listed. Each is a SyntaxError on Python 3.
local KINDS = {
	{ capture = "print", name = N_("print statement"), now = N_("Python 3 calls print()") },
	{ capture = "exec", name = N_("exec statement"), now = N_("Python 3 calls exec()") },
	{ capture = "except_comma", name = N_("`except E, name`"), now = N_("Python 3 says `except E as name`") },
	{ capture = "raise_comma", name = N_("`raise E, message`"), now = N_("Python 3 says `raise E(message)`") },
	{ capture = "ne", name = N_("`<>`"), now = N_("Python 3 has only `!=`") },
	{ capture = "backquote", name = N_("backquotes"), now = N_("Python 3 calls repr()") },
	{ capture = "ur", name = N_("`ur` string prefix"), now = N_("Python 3 takes `r` or `u`, not both") },
	{ capture = "octal", name = N_("old octal integer"), now = N_("Python 3 says `0o777` for `0777`") },
	{ capture = "long_int", name = N_("long integer"), now = N_("Python 3 has no `L` suffix") },
}

local QUERY = [[
(print_statement) @print
(exec_statement) @exec
(except_clause ",") @except_comma
(raise_statement (expression_list)) @raise_comma
(comparison_operator "<>") @ne
((string) @backquote (#match? @backquote "^`"))
((string) @ur (#match? @ur "^[uU][rR]"))
((integer) @octal (#match? @octal "^0+[1-9][0-9]*[lL]?$"))
((integer) @long_int (#match? @long_int "^([1-9][0-9]*|0[xXoObB][0-9a-fA-F]+|0+)[lL]$"))
]]

-- Constructs that parse under Python 3 and fail when they run; listed after KINDS. error is
-- what Python 3 says.
local RUNTIME = {
	{ capture = "iteritems", name = N_("`.iteritems()`"), now = N_("Python 3 dicts have items()"),
	  error = "AttributeError: 'dict' object has no attribute 'iteritems'" },
	{ capture = "itervalues", name = N_("`.itervalues()`"), now = N_("Python 3 dicts have values()"),
	  error = "AttributeError: 'dict' object has no attribute 'itervalues'" },
	{ capture = "iterkeys", name = N_("`.iterkeys()`"), now = N_("Python 3 dicts have keys()"),
	  error = "AttributeError: 'dict' object has no attribute 'iterkeys'" },
	{ capture = "has_key", name = N_("`.has_key()`"), now = N_("Python 3 says `key in d`"),
	  error = "AttributeError: 'dict' object has no attribute 'has_key'" },
	{ capture = "xrange", name = N_("`xrange()`"), now = N_("Python 3 calls range()"),
	  error = "NameError: name 'xrange' is not defined" },
	{ capture = "unicode", name = N_("`unicode()`"), now = N_("Python 3 calls str()"),
	  error = "NameError: name 'unicode' is not defined" },
	{ capture = "unichr", name = N_("`unichr()`"), now = N_("Python 3 calls chr()"),
	  error = "NameError: name 'unichr' is not defined" },
	{ capture = "long", name = N_("`long()`"), now = N_("Python 3 calls int()"),
	  error = "NameError: name 'long' is not defined" },
	{ capture = "raw_input", name = N_("`raw_input()`"), now = N_("Python 3 calls input()"),
	  error = "NameError: name 'raw_input' is not defined" },
	{ capture = "basestring", name = N_("`basestring`"), now = N_("Python 3 has str and bytes"),
	  error = "NameError: name 'basestring' is not defined" },
	{ capture = "module", name = N_("Python 2 module") },
	{ capture = "sibling", name = N_("implicit relative import") },
}

-- The methods and builtins above, and the Python 2 modules with their Python 3 names
-- (PEP 3108, "Standard Library Reorganization"; What's New In Python 3.0).
local METHODS = { iteritems = true, itervalues = true, iterkeys = true, has_key = true }
local BUILTINS = { xrange = true, unicode = true, unichr = true, long = true, raw_input = true, basestring = true }
local RENAMED = {
	cPickle = "pickle", cStringIO = "io", StringIO = "io", urllib2 = "urllib.request", urlparse = "urllib.parse",
	Queue = "queue", ConfigParser = "configparser", __builtin__ = "builtins", httplib = "http.client",
	copy_reg = "copyreg", Tkinter = "tkinter", SocketServer = "socketserver", cookielib = "http.cookiejar",
}
-- modules whose `import *` binds Python 2's names on Python 3
local SHIMS = { ["six.moves"] = true, builtins = true, ["past.builtins"] = true, ["future.builtins"] = true }

local RUNTIME_QUERY = [[
((call function: (attribute object: (_) @object attribute: (identifier) @method)) @call
  (#any-of? @method "iteritems" "itervalues" "iterkeys" "has_key"))
((call function: (identifier) @builtin) @call (#any-of? @builtin "xrange" "unicode" "unichr" "long" "raw_input"))
((identifier) @builtin @call (#eq? @builtin "basestring"))
(assignment left: (identifier) @bound right: (call function: (identifier) @ctor)?)
((class_definition name: (identifier) @cls body: (block (function_definition name: (identifier) @own)))
  (#any-of? @own "iteritems" "itervalues" "iterkeys" "has_key"))
(function_definition name: (identifier) @bound)
(class_definition name: (identifier) @bound)
(try_statement body: (block) @guard (except_clause) @except)
(if_statement condition: (_) @cond consequence: (block) @guard)
(if_statement condition: (_) @cond alternative: (else_clause body: (block) @guard))
(if_statement condition: (_) @cond alternative: (elif_clause consequence: (block) @guard))
]]

local words = require("words")
local py = require("py")

-- What a Python 2 exception clause or version test guarding a block looks like.
local function is_guard(m)
	if m.except then
		local t = m.except.text:match("^[^:]*")
		return t:find("ImportError") or t:find("NameError") or t:find("AttributeError") or t:find("^except%s*$")
	end
	local c = m.cond.text
	return c:find("version") or c:find("PY2") or c:find("PY3")
end

-- The run-time constructs of a file: {capture=, node=, ...} in no order, and the classes
-- the file defines with a method of their own named like a Python 2 dict method.
local function runtime_constructs(ctx, path)
	local guards, bound, cands, classes, made = {}, {}, {}, {}, {}
	for _i, m in ipairs(ctx.query(path, RUNTIME_QUERY) or {}) do
		if m.guard then
			if is_guard(m) then guards[#guards + 1] = m.guard end
		elseif m.cls then
			classes[m.cls.text] = true
		elseif m.bound then
			bound[m.bound.text] = true
			if m.ctor then made[m.bound.text] = m.ctor.text end
		elseif m.method then
			-- `self.has_key()` in a class of the file, `x.has_key()` after `x = Own()`
			local of = m.object.text == "self" and "self" or made[m.object.text]
			cands[#cands + 1] = { capture = m.method.text, node = m.call, method = true, of = of }
		elseif m.builtin then
			cands[#cands + 1] = { capture = m.builtin.text, node = m.call, name = m.builtin.text }
		end
	end
	local star = false
	for _i, r in ipairs(py.imports(ctx, path) or {}) do
		if r.bound then bound[r.bound] = true end
		if r.name == "*" and SHIMS[r.module] then star = true end
		local top = r.module:match("^[^.]+")
		local now = top and RENAMED[top]
		if now then
			cands[#cands + 1] = { capture = "module", node = r.node, module = top, now = now }
		end
	end
	local out = {}
	for _i, c in ipairs(cands) do
		local guarded = false
		for _j, g in ipairs(guards) do
			if c.node.start_byte >= g.start_byte and c.node.end_byte <= g.end_byte then guarded = true end
		end
		if not guarded and not (c.name and (bound[c.name] or star)) then out[#out + 1] = c end
	end
	return out, classes
end

-- The folder of a project path ("" at the root).
local function folder(path)
	return path:match("^(.*)/[^/]*$") or ""
end

-- Set of the module names each folder holds: folder -> {name = true} (b.py, b.pyx, b/ with
-- an __init__.py), and the set of folders that are packages.
local function module_names(ctx)
	local names, packages = {}, {}
	local function add(dir, name)
		names[dir] = names[dir] or {}
		names[dir][name] = true
	end
	for _i, path in ipairs(ctx.files("%.pyx?$")) do
		local dir, base = folder(path), path:match("([^/]+)%.pyx?$")
		if base == "__init__" and path:sub(-3) == ".py" then
			packages[dir] = true
			if dir ~= "" then add(folder(dir), dir:match("[^/]+$")) end
		else
			add(dir, base)
		end
	end
	return names, packages
end

-- Marks in out the package folders a sys.path line of the file path may put on the path:
-- the folder of path itself when it is a package, and any package the line names.
local function mark_pathed(out, path, line, packages)
	for dir in pairs(packages) do
		local base = dir:match("[^/]+$")
		if folder(path) == dir or (base and line:find(base, 1, true)) then out[dir] = true end
	end
end

-- Set of the package folders whose bare imports may work on Python 3 because some file
-- puts a folder on sys.path: the package's own files doing it, or a line naming the folder.
local function on_sys_path(ctx, packages)
	local out = {}
	for _i, path in ipairs(ctx.files("%.py$")) do
		for _j, line in ipairs(ctx.find(path, "sys.path") and ctx.lines(path) or {}) do
			if line:find("sys.path", 1, true) then mark_pathed(out, path, line, packages) end
		end
	end
	return out
end

-- The top-level module names a top-level import line names: "import a.b, c as d" ->
-- {"a", "c"}, "from a.b import x" -> {"a"}; none for relative and __future__ imports.
local function imported_tops(line)
	local from = line:match("^from%s+([%w_%.]+)%s+import[%s%(]")
	if from then
		return (from:sub(1, 1) == "." or from == "__future__") and {} or { from:match("^[^.]+") }
	end
	local list = line:match("^import%s+([^#;]+)")
	local out = {}
	for part in (list or ""):gmatch("[^,]+") do
		out[#out + 1] = part:match("^%s*([%w_]+)")
	end
	return out
end

-- The implicit relative import of line n, {capture = "sibling", line=, col=, code=,
-- module=, relative=}, or nil: a top-level import of a name in siblings that the project
-- root does not hold and that is not the file's own module (self).
local function sibling_import(line, n, siblings, root, self)
	for _j, top in ipairs(imported_tops(line)) do
		if siblings[top] and not root[top] and top ~= self then
			local rel = line:match("^from%s") and line:gsub("^from%s+", "from .", 1) or ("from . import " .. top)
			return { capture = "sibling", line = n, col = 1, module = top,
				code = words.clip(line, 60), relative = words.clip(rel, 60) }
		end
	end
	return nil
end

-- The implicit relative imports of the project's package modules: path -> list of
-- sibling_import records, in line order.
local function sibling_imports(ctx)
	local names, packages = module_names(ctx)
	local pathed, root, out = on_sys_path(ctx, packages), names[""] or {}, {}
	for _i, path in ipairs(ctx.files("%.py$")) do
		local dir = folder(path)
		local siblings = packages[dir] and not pathed[dir] and names[dir]
		local scan = siblings and ctx.find(path, "import") and not ctx.find(path, "absolute_import")
		for n, line in ipairs(scan and ctx.lines(path) or {}) do
			local c = sibling_import(line, n, siblings, root, path:match("([^/]+)%.py$"))
			if c then
				out[path] = out[path] or {}
				table.insert(out[path], c)
			end
		end
	end
	return out
end

-- Whether run-time construct a comes before b in its file (a node's position, or the line
-- and column of one found in the text).
local function earlier(a, b)
	local al, ac = a.node and a.node.line or a.line, a.node and a.node.col or a.col
	local bl, bc = b.node and b.node.line or b.line, b.node and b.node.col or b.col
	return al < bl or (al == bl and ac < bc)
end

-- Adds each file's implicit relative imports (path -> list) to its run-time constructs in
-- files ({path=, counts=, first=, runtime=}), and the files that have no other construct.
local function add_siblings(files, siblings)
	for _i, f in ipairs(files) do
		for _j, c in ipairs(siblings[f.path] or {}) do f.runtime[#f.runtime + 1] = c end
		siblings[f.path] = nil
	end
	for path, list in pairs(siblings) do
		files[#files + 1] = { path = path, counts = {}, runtime = list }
	end
	table.sort(files, function(a, b) return a.path < b.path end)
end

-- The first line of a node's text, at most 60 bytes, for the message.
local function code_of(ctx, path, node)
	return words.clip(ctx.node_text(path, node.start_byte, node.end_byte):match("^[^\n]*"), 60)
end

return {
	id = "assess.python2",
	phase = "assess",
	title = _("Python 2 code"),
	severity = "error",
	category = "python2",
	description = _("Finds files written in Python 2: print and exec statements, `except E, name`, `raise E, message`, "
		.. "`<>`, backquotes, `ur` strings, long and old octal integers, which Python 3 refuses with a SyntaxError, "
		.. "and the code it parses but stops on when it runs: dict.iteritems(), itervalues(), iterkeys() and "
		.. "has_key(), xrange(), unicode(), unichr(), long(), raw_input(), basestring and the modules Python 3 "
		.. "renamed (cPickle, cStringIO, StringIO, urllib2, urlparse, Queue, ConfigParser, __builtin__ ...) and, in "
		.. "a project with such constructs, a package module's bare import of a module beside it (`import b` for "
		.. "pkg/b.py), which Python 3 reads as a top-level module, unless "
		.. "the project binds the name itself (six.moves, builtins or past.builtins imports, `xrange = range`, an "
		.. "import guarded by `except ImportError` or a Python version test, its own has_key). PyTorch 1.4 was the "
		.. "last release to support Python 2 (PyTorch 1.4.0 release notes) and torch_npu runs on Python 3 only. One "
		.. "finding per file, with the count of each construct."),
	-- a Python 2 file almost always prints with the statement; the rarer constructs wake
	-- the check on their own only where they are literal enough to search for
	triggers = { "print ", "print\t", "print\"", "print'", "print>>", "exec ", "<>", { "except ", ", e:" },
		"iteritems", "itervalues", "iterkeys", "has_key", "xrange", "unicode(", "unichr", "long(", "raw_input",
		"basestring", "cPickle", "StringIO", "urllib2", "urlparse", "Queue", "ConfigParser", "__builtin__",
		"httplib", "copy_reg", "Tkinter", "SocketServer", "cookielib" },
	run = function(ctx)
		-- the findings wait for the whole project: a method called on an object of a class
		-- it defines with that method (its own has_key) is no Python 2 construct
		local files, classes, siblings = {}, {}, sibling_imports(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			local counts, first = {}, nil
			for _j, m in ipairs(ctx.query(path, QUERY) or {}) do
				for _k, kind in ipairs(KINDS) do
					local node = m[kind.capture]
					if node then
						counts[kind.capture] = (counts[kind.capture] or 0) + 1
						if not first or node.start_byte < first.node.start_byte then
							first = { node = node, kind = kind }
						end
					end
				end
			end
			local runtime, own = runtime_constructs(ctx, path)
			for name in pairs(own) do classes[name] = true end
			for _j, c in ipairs(runtime) do
				c.code = code_of(ctx, path, c.node)
				c.dotted = c.name and c.node.start_byte > 0
					and ctx.node_text(path, c.node.start_byte - 1, c.node.start_byte) == "."
			end
			if first or #runtime > 0 then
				files[#files + 1] = { path = path, counts = counts, first = first, runtime = runtime }
			end
		end
		-- implicit relative imports only in a project that other Python 2 constructs show to
		-- be Python 2 code: in Python 3 code a bare `import triton` beside a subpackage named
		-- triton means the installed library
		if #files > 0 then add_siblings(files, siblings) end
		for _i, f in ipairs(files) do
			local counts, later = f.counts, nil
			for _j, c in ipairs(f.runtime) do
				local mine = c.of and (c.of == "self" and next(classes) or classes[c.of])
				if not mine and not c.dotted then
					counts[c.capture] = (counts[c.capture] or 0) + 1
					if not later or earlier(c, later) then later = c end
				end
			end
			local listed = {}
			for _k, list in ipairs({ KINDS, RUNTIME }) do
				for _m, kind in ipairs(list) do
					if counts[kind.capture] then
						listed[#listed + 1] = _("{what} ×{count}", { what = _(kind.name), count = counts[kind.capture] })
					end
				end
			end
			local first = f.first
			local suggestion = _("Port the file to Python 3 before migrating it (2to3, shipped with Python up to 3.12, does most of it), then check what changed meaning without a syntax error: `/` between integers, str and bytes, dict views, and iterators such as map and zip.")
			if first then
				ctx.report{
					file = f.path, node = first.node, key = "python2", unit = f.path,
					message = _("`{code}` is Python 2 syntax ({what}; {now}): this file is Python 2 code, and Python 3, which PyTorch has needed since 1.5 and torch_npu needs, stops on it with a SyntaxError before anything in the file runs. Python 2 constructs in the file: {list}.",
						{ code = code_of(ctx, f.path, first.node), what = _(first.kind.name), now = _(first.kind.now),
						  list = words.join(listed) }),
					suggestion = suggestion,
				}
			elseif later then
				local kind
				for _k, k in ipairs(RUNTIME) do if k.capture == later.capture then kind = k end end
				local now = later.capture == "sibling"
					and _("Python 3 imports are absolute, and `{relative}` names the module beside it", { relative = later.relative })
					or later.module and _("Python 3 names it {name}", { name = later.now }) or _(kind.now)
				local err = later.module and ("ModuleNotFoundError: No module named '" .. later.module .. "'") or kind.error
				ctx.report{
					file = f.path, node = later.node, line = later.line, col = later.col, key = "python2", unit = f.path,
					message = _("`{code}` is Python 2 ({what}; {now}): this file is Python 2 code. Python 3, which PyTorch has needed since 1.5 and torch_npu needs, parses it but stops when it runs this line: \"{error}\". Python 2 constructs in the file: {list}.",
						{ code = later.code, what = _(kind.name), now = now, error = err, list = words.join(listed) }),
					suggestion = suggestion,
				}
			end
		end
	end,
}
