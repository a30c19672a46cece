-- assess.python2: files written in Python 2, which no PyTorch of the NPU era runs.
--
-- The Python grammar ferry parses with accepts Python 2's statements (print, exec), so such
-- a file raises no syntax-error finding, and every other check reads it as if it ran. On
-- Python 3 it stops with a SyntaxError at import. One finding per file, at its first
-- Python 2 construct, with how many of each kind the file holds: the work is porting the
-- file, not each line.

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
	{ capture = "long", name = N_("long integer"), now = N_("Python 3 has no `L` suffix") },
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
((integer) @long (#match? @long "^([1-9][0-9]*|0[xXoObB][0-9a-fA-F]+|0+)[lL]$"))
]]

local words = require("words")

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
	description = _("Finds files written in Python 2 (print and exec statements, `except E, name`, `raise E, message`, "
		.. "`<>`, backquotes, `ur` strings, long and old octal integers): PyTorch 1.4 was the last release to support "
		.. "Python 2 (PyTorch 1.4.0 release notes), torch_npu runs on Python 3 only, and Python 3 refuses such a file "
		.. "with a SyntaxError. One finding per file, with the count of each construct."),
	-- a Python 2 file almost always prints with the statement; the rarer constructs wake
	-- the check on their own only where they are literal enough to search for
	triggers = { "print ", "print\t", "print\"", "print'", "print>>", "exec ", "<>", { "except ", ", e:" } },
	run = function(ctx)
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
			if first then
				local listed = {}
				for _k, kind in ipairs(KINDS) do
					if counts[kind.capture] then
						listed[#listed + 1] = _("{what} ×{count}", { what = _(kind.name), count = counts[kind.capture] })
					end
				end
				ctx.report{
					file = path, node = first.node, key = "python2", unit = path,
					message = _("`{code}` is Python 2 syntax ({what}; {now}): this file is Python 2 code, and Python 3, which PyTorch has needed since 1.5 and torch_npu needs, stops on it with a SyntaxError before anything in the file runs. Python 2 constructs in the file: {list}.",
						{ code = code_of(ctx, path, first.node), what = _(first.kind.name), now = _(first.kind.now),
						  list = words.join(listed) }),
					suggestion = _("Port the file to Python 3 before migrating it (2to3, shipped with Python up to 3.12, does most of it), then check what changed meaning without a syntax error: `/` between integers, str and bytes, dict views, and iterators such as map and zip."),
				}
			end
		end
	end,
}
