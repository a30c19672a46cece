-- refs: the building blocks that several checks share on top of py.lua.
--
--   local refs = require("refs")
--
-- Dotted names as the code uses them (with import aliases expanded), string literals with
-- the position of their content, the lines of shell scripts with their code part, and a
-- site reporter shared by the survey (assess) and the fixes (adapt). Helpers taking
-- (ctx, path) return empty lists when the file cannot be parsed.

local py = require("py")

local refs = {}

-- Local name -> full dotted name bound by the file's imports ({tc = "torch.cuda"});
-- an empty table when the file cannot be parsed.
function refs.aliases(ctx, path)
	return py.aliases(ctx, path) or {}
end

-- The file's dotted names and string literals are asked for by several detectors in a
-- row (a check that needs to know whether a file has anything to rewrite runs them all):
-- they are kept for the file last asked about. Callers must not change what they get.
local last_path, last = nil, {}
local function kept(path, what, make)
	if last_path ~= path then last_path, last = path, {} end
	local v = last[what]
	if v == nil then
		v = make()
		last[what] = v
	end
	return v
end

-- Dotted names used in code: outermost attribute chains (torch.cuda.synchronize) and
-- plain callees and decorators (autocast(...), @script), each {text=, node=, resolved=,
-- plain=}, in source order. Comments and strings never appear.
local CALLEES = "(call function: (identifier) @f) (decorator (identifier) @f)"
function refs.dotted(ctx, path, map)
	local found = kept(path, "dotted", function()
		local attrs = py.attributes(ctx, path) or {}
		local calls = ctx.query(path, CALLEES) or {}
		for k = 2, #calls do
			if calls[k].f.start_byte < calls[k - 1].f.start_byte then
				table.sort(calls, function(x, y) return x.f.start_byte < y.f.start_byte end)
				break
			end
		end
		-- both lists are in source order: merged, not sorted again
		local out, i, j = {}, 1, 1
		while i <= #attrs or j <= #calls do
			local at, c = attrs[i], calls[j]
			if c and (not at or c.f.start_byte < at.node.start_byte) then
				out[#out + 1] = { text = c.f.text, node = c.f, plain = true }
				j = j + 1
			else
				out[#out + 1] = { text = at.text, node = at.node }
				i = i + 1
			end
		end
		return out
	end)
	-- resolved through the caller's aliases: kept too while the same map is given
	local r = kept(path, "dotted_resolved", function() return {} end)
	if r.map ~= map or not r.out then
		r.map, r.out = map, {}
		for i, d in ipairs(found) do
			r.out[i] = { text = d.text, node = d.node, plain = d.plain, resolved = py.expand(map, d.text) }
		end
	end
	return r.out
end

-- String literals of the file, as py.strings(ctx, path) gives them (kept for the file
-- last asked about; an empty list when the file cannot be parsed).
function refs.strings(ctx, path)
	return kept(path, "strings", function() return py.strings(ctx, path) or {} end)
end

-- A string literal's content and the byte offset where the content starts:
-- refs.string_inner(node of 'f"cuda:{r}"') -> "cuda:{r}", start_byte + 2.
function refs.string_inner(node)
	local value, prefix = py.string_value(node.text)
	if not value then return "", node.start_byte end
	local quote = (#node.text - #prefix - #value) // 2
	return value, node.start_byte + #prefix + quote
end

-- An edit replacing `len` bytes at `at` (absolute byte offset) by text.
function refs.edit(at, len, text)
	return { start_byte = at, end_byte = at + len, text = text }
end

-- The table entry for a dotted name: the exact name, else its longest listed prefix.
function refs.lookup(index, name)
	local n = name
	while n do
		if index[n] then return index[n] end
		n = n:match("^(.*)%.[^%.]+$")
	end
	return nil
end

-- Start bytes of string literals that are text for people: passed straight to a call
-- that prints or logs (print, log.info, logger.warning, warnings.warn,
-- sys.stderr.write ...), or given as help=, description=, msg= ... to any call. They are
-- never rewritten, even when their text looks like a device or a backend.
local MESSAGE_FUNCS = {
	print = true, info = true, debug = true, warning = true, warn = true, error = true,
	critical = true, exception = true, log = true, write = true, fatal = true,
	set_description = true, set_postfix_str = true,
}
local MESSAGE_KEYWORDS = {
	help = true, description = true, epilog = true, usage = true, msg = true, message = true,
	desc = true, title = true, label = true, doc = true,
}
-- Whether a call's function (a node: `print`, `logger.warning`) prints or logs.
local function tells(f)
	return MESSAGE_FUNCS[f.text:match("([%a_][%w_]*)%s*$") or ""] == true
end

local MESSAGE_QUERY = [[
(call function: (_) @f arguments: (argument_list (string) @s))
(keyword_argument name: (identifier) @k value: (string) @s)
]]
function refs.message_strings(ctx, path)
	return kept(path, "messages", function()
		local out = {}
		for _i, m in ipairs(ctx.query(path, MESSAGE_QUERY) or {}) do
			if m.k then
				if MESSAGE_KEYWORDS[m.k.text] then out[m.s.start_byte] = true end
			elseif tells(m.f) then
				out[m.s.start_byte] = true
			end
		end
		return out
	end)
end

-- The tests of branches that only tell people something: an `if` with no elif or else
-- whose body is nothing but calls that print or log (MESSAGE_FUNCS), as in
-- `if backend == "nccl": warnings.warn("nccl needs two GPUs")`. A value such a test
-- compares with names what the message is about; rewritten, the message would fire
-- where it does not apply. A list of {s=, e=} byte ranges of the conditions.
local MESSAGE_BRANCHES = [[
(if_statement condition: (_) @cond consequence: (block) @body alternative: (_)? @alt)
]]
local BODY_STATEMENTS = "(if_statement consequence: (block (_) @st) @body)"
local BODY_CALLS = "(if_statement consequence: (block (expression_statement (call function: (_) @f)) @st) @body)"
function refs.message_branch_tests(ctx, path)
	return kept(path, "message_branches", function()
		local total, told = {}, {}
		for _i, m in ipairs(ctx.query(path, BODY_STATEMENTS) or {}) do
			if m.st.type ~= "comment" then
				total[m.body.start_byte] = (total[m.body.start_byte] or 0) + 1
			end
		end
		for _i, m in ipairs(ctx.query(path, BODY_CALLS) or {}) do
			if tells(m.f) then
				told[m.body.start_byte] = (told[m.body.start_byte] or 0) + 1
			end
		end
		local out = {}
		for _i, m in ipairs(ctx.query(path, MESSAGE_BRANCHES) or {}) do
			local b = m.body.start_byte
			if not m.alt and total[b] and told[b] == total[b] then
				out[#out + 1] = { s = m.cond.start_byte, e = m.cond.end_byte }
			end
		end
		return out
	end)
end

-- The lines of a shell script: list of {line=, pos=, text=, code=} where pos is the
-- byte offset (1-based) of the line in the file, text the line without its ending and
-- code the part before a comment (a # at the start of a word outside quotes).
function refs.shell_lines(ctx, path)
	local text = ctx.read(path)
	local out = {}
	if not text then return out end
	local pos, line = 1, 1
	while pos <= #text do
		local nl = text:find("\n", pos, true) or (#text + 1)
		local l = text:sub(pos, nl - 1):gsub("\r$", "")
		local code, quote, prev = l, nil, " "
		for i = 1, #l do
			local c = l:sub(i, i)
			if quote then
				if c == quote and (quote == "'" or prev ~= "\\") then quote = nil end
			elseif c == "'" or c == '"' then
				quote = c
			elseif c == "#" and prev:match("%s") then
				code = l:sub(1, i - 1)
				break
			end
			prev = c
		end
		out[#out + 1] = { line = line, pos = pos, text = l, code = code }
		pos, line = nl + 1, line + 1
	end
	return out
end

-- A suggestion (a _() result) for a site the adapt phase rewrites by itself, with the
-- sentence saying so after it.
function refs.adapt_note(suggestion)
	return _("{advice} The adapt phase makes this change automatically (`ferry fix --phase adapt`).",
		{ advice = suggestion or "" })
end

-- Reports a site found by a shared detector. A site is a finding table (file, node or
-- line/col, message, suggestion, severity, key, data) that may carry `edits`, plus:
--   only           "survey" or "fix": report it in that mode alone
--   fix_message    the message in mode "fix" when the site has no edits (why ferry
--                  leaves it to a human); fix_suggestion likewise
--   human          the construct needs a human in any case (no edits exist)
-- With mode "survey" (assess) the edits are dropped and the suggestion says that adapt
-- makes the change; with mode "fix" (adapt) the edits are kept. Messages and suggestions
-- are _() results (the suggestion of survey mode wraps the site's own).
local EXTRA = { only = true, fix_message = true, fix_suggestion = true, human = true }
function refs.report(ctx, site, mode)
	if site.only and site.only ~= mode then return end
	local f = {}
	for k, v in pairs(site) do
		if not EXTRA[k] then f[k] = v end
	end
	if f.edits and #f.edits == 0 then f.edits = nil end
	if mode == "survey" then
		if f.edits then
			f.suggestion = refs.adapt_note(f.suggestion)
			f.automatic = true
		end
		f.edits = nil
	elseif not f.edits then
		f.message = site.fix_message or f.message
		f.suggestion = site.fix_suggestion or f.suggestion
	end
	ctx.report(f)
end

-- Reports every site of a list (see refs.report); returns how many carried edits.
function refs.report_all(ctx, sites, mode)
	local n = 0
	for _i, s in ipairs(sites) do
		refs.report(ctx, s, mode)
		if s.edits and #s.edits > 0 and (not s.only or s.only == mode) then n = n + 1 end
	end
	return n
end

return refs
