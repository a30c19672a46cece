-- assess.python2: files written in Python 2, which no PyTorch of the NPU era runs.
--
-- The Python grammar ferry parses with accepts Python 2's statements (print, exec), so such
-- a file raises no syntax-error finding, and every other check reads it as if it ran. On
-- Python 3 it stops with a SyntaxError at import. Other Python 2 code parses under Python 3
-- and fails only when it runs: dict.iteritems() and has_key(), xrange(), unicode(), the
-- modules Python 3 renamed (cPickle, urllib2, Queue ...). Those are found too, except
-- where the project binds the name itself (`from six.moves import xrange`, `unicode = str`,
-- an import under `try: ... except ImportError` or `if sys.version_info ...`, a class of its
-- own defining has_key). One finding per file, at its first construct that is a syntax
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
		.. "renamed (cPickle, cStringIO, StringIO, urllib2, urlparse, Queue, ConfigParser, __builtin__ ...), unless "
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
		local files, classes = {}, {}
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
		for _i, f in ipairs(files) do
			local counts, later = f.counts, nil
			for _j, c in ipairs(f.runtime) do
				local mine = c.of and (c.of == "self" and next(classes) or classes[c.of])
				if not mine and not c.dotted then
					counts[c.capture] = (counts[c.capture] or 0) + 1
					if not later or c.node.start_byte < later.node.start_byte then later = c end
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
				local now = later.module and _("Python 3 names it {name}", { name = later.now }) or _(kind.now)
				local err = later.module and ("ModuleNotFoundError: No module named '" .. later.module .. "'") or kind.error
				ctx.report{
					file = f.path, node = later.node, key = "python2", unit = f.path,
					message = _("`{code}` is Python 2 ({what}; {now}): this file is Python 2 code. Python 3, which PyTorch has needed since 1.5 and torch_npu needs, parses it but stops when it runs this line: \"{error}\". Python 2 constructs in the file: {list}.",
						{ code = later.code, what = _(kind.name), now = now, error = err, list = words.join(listed) }),
					suggestion = suggestion,
				}
			end
		end
	end,
}
