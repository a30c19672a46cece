-- tune.run_log: diagnosis of the NPU runs ingested with `ferry ingest run-log FILE`.
--
-- The log is scanned by the host (ctx.scan_artifact), line by line and at any size, for
-- the plain strings of plugins/data/run_errors.json; each line found is explained by the
-- first rule whose needle and pattern it matches; a rule's `signals` explain the lines where
-- the shell, a launcher or Python's faulthandler reports a death by one of them (a segfault,
-- an OOM kill: no traceback at all). Every rule found is one finding naming
-- the artifact, the line number of its first occurrence, the line itself (at most
-- MAX_QUOTE bytes) and how many more lines it explains. A Python traceback no rule
-- explains gets the generic finding, which quotes the exception that ended the run (the
-- line after the last traceback's frames: of chained exceptions the last one, of a message
-- of several lines its first) with its line number; when that traceback is an exception
-- group's, the run ended with each of its sub-exceptions, and each one no rule explains is
-- quoted (those alike once), with its place in the group. A log with no traceback and no
-- error whose last line reads as an error ends with that message (sys.exit("...")). A log
-- of a run that went well gives none. The scan keeps at most MAX_HITS lines per needle, so
-- a rule first met after as many lines of another rule with the same needle can be
-- missed; such cut scans are said in the finding.

local words = require("words")

local MAX_QUOTE = 200
local MAX_HITS = 200

-- The line without its indent, nor the margin of an exception group's sub-exception.
local function quote(text)
	return words.clip(text:gsub("^%s*|%s", ""):gsub("^%s+", ""):gsub("%s+$", ""), MAX_QUOTE)
end

-- The plain strings that report a death by the signal s ({name=, number=, text=}, of a
-- rule's `signals`) on their own: torch.distributed.elastic's agent ("failed (exitcode: -9)")
-- and its ChildFailedError ("exitcode  : -9 (pid: 1234)", "Signal 9 (SIGKILL) received by
-- PID 1234"), subprocess's CalledProcessError ("died with <Signals.SIGKILL: 9>").
local function signal_needles(s)
	local n, name = string.format("%d", s.number), s.name
	return { "failed (exitcode: -" .. n .. ")", "exitcode  : -" .. n .. " (pid:",
		"Signal " .. n .. " (" .. name .. ") received by PID", "died with <Signals." .. name .. ": " .. n .. ">" }
end

-- Whether the line reports a death by the signal whose description (strsignal's: "Killed",
-- "Segmentation fault") it holds: the shell's line for its job, the whole line with or without
-- " (core dumped)" (bash in a terminal, as faulthandler's documentation shows it), or bash's
-- "FILE: line L: PID TEXT   COMMAND" of a script; or Python's faulthandler ("Fatal Python
-- error: Segmentation fault"). Never the word in a sentence ("Killed 3 stale workers").
local function signal_said(line, text)
	if line:find("Fatal Python error: " .. text, 1, true) then return true end
	local t = text:gsub("%p", "%%%0")
	return line:find("^%s*" .. t .. "%s*$") ~= nil or line:find("^%s*" .. t .. " %(core dumped%)%s*$") ~= nil
		or line:find(": line %d+: +%d+ " .. t) ~= nil
end

-- needles: the rule's plain strings with those of its signals (see signal_needles)
local function matches(rule, needles, line)
	for _i, s in ipairs(rule.signals or {}) do
		if line:find(s.text, 1, true) and signal_said(line, s.text) then return true, nil end
	end
	local held = false
	for _i, n in ipairs(needles) do
		if line:find(n, 1, true) then held = true break end
	end
	if not held then return false end
	if not rule.pattern then return true, nil end
	local a, _e, cap = line:find(rule.pattern)
	return a ~= nil, cap
end

-- Python's words before a traceback of an exception that did not end the run (docs:
-- sys.unraisablehook's "Exception ignored in", atexit's "Error in atexit._run_exitfuncs").
local NOT_THE_END = { "Exception ignored in", "Error in atexit._run_exitfuncs:" }

-- How Python (3.11 on) prints an exception group (docs: traceback's max_group_width and
-- max_group_depth): raised at the top, under "  + Exception Group Traceback (most recent
-- call last):" and its frames, its own line ("ExceptionGroup: msg (2 sub-exceptions)"),
-- then each sub-exception after a separator ("+-+---------------- 1 ----------------", then
-- "  +---------------- 2 ---…"), printed as usual behind a margin "| " two blanks deeper
-- per level: a traceback, or a nested group (headed "| Exception Group Traceback …", or by
-- its own line when it was never raised). Past 15 sub-exceptions the separator's number is
-- "..." and the line after it "and N more exceptions"; past 10 levels a group is the line
-- "... (max_group_depth is 10)". The line after the last sub-exception closes the group.
local GROUP_TOP = "+ Exception Group Traceback"
local GROUP_NESTED = "Exception Group Traceback"
local SEP = "+---------------- "
local CLOSE = "+------------------------------------"

local function holds(text, s)
	return text:find(s, 1, true) ~= nil
end

local function module_of(codes, code)
	for _i, c in ipairs(codes) do
		if code:sub(1, #c.prefix) == c.prefix then return c end
	end
end

-- A traceback's echo of the source line that raised (`    raise AssertionError("...")`),
-- which holds the message too, one line above the exception itself.
-- Inside an exception group the echo is behind its margin (`    |     raise …`).
local function echoed_raise(text)
	return text:match("^%s*|?%s+raise[%s(]") ~= nil
end

-- The group raised at the top whose header is hits[i] ends with the first closing line not
-- followed by more of it (the next separator, or the margin of a chained exception's
-- message): that line's number and index, or the end of the log.
local function group_close(hits, i)
	for j = i + 1, #hits do
		local h = hits[j]
		if holds(h.text, CLOSE) then
			local n = h.next and h.next.text
			if not n or not (holds(n, SEP) or n:find("|%s*$")) then return h.line, j end
		end
	end
	return math.huge, #hits
end

-- How the run ended: the last traceback printed at the top (not inside an exception group,
-- nor after the words of an exception that did not end the run), {hit=, index=, group=,
-- close=, upto=} (group: it is an exception group's, which spans the hits up to index
-- upto, its closing line close), and how many such tracebacks the log holds.
local function last_traceback(hits, tb, ignored)
	local last, count, inside = nil, 0, 0
	for i, h in ipairs(hits) do
		if h.needle == tb and h.line > inside then
			local e = { hit = h, index = i, group = holds(h.text, GROUP_TOP) }
			if e.group then
				e.close, e.upto = group_close(hits, i)
				inside = e.close
			end
			if not ignored[h.line] then last, count = e, count + 1 end
		end
	end
	return last, count
end

-- The sub-exceptions of the exception group g: each {line=, text=, from=, to=, path=}, the
-- exception that ended it (after the frames of its last traceback, else its only line) with
-- the text behind the margin, the lines of its part of the log (from its separator to the
-- next), its place ("2.1": the first of the group that is the second); and the lines where
-- Python left sub-exceptions out, {line=, text=}.
local function sub_exceptions(hits, g, tb)
	local marks, out, cut, path = {}, {}, {}, {}
	for k = g.index + 1, g.upto do
		local t = hits[k].text
		if holds(t, SEP) or holds(t, CLOSE) then marks[#marks + 1] = k end
	end
	for m, k in ipairs(marks) do
		local s = hits[k]
		local at = s.text:find(SEP, 1, true)
		if at then
			local stop = marks[m + 1] and hits[marks[m + 1]].line or g.close
			local title = s.text:match("^%+%-+ (%S+) ", at) or "?"
			while #path > 0 and path[#path].at >= at do path[#path] = nil end
			path[#path + 1] = { at = at, n = title }
			local first = s.next or { line = s.line, text = s.text }
			local body = first.text:sub(at + 2)
			if title == "..." or holds(body, "(max_group_depth is ") then
				cut[#cut + 1] = { line = first.line, text = body }
			elseif not holds(body, GROUP_NESTED) and not body:find("%(%d+ sub%-exceptions?%)%s*$") then
				local e = first
				for q = k + 1, g.upto do
					local h = hits[q]
					if h.line >= stop then break end
					if h.needle == tb and h.follow and h.follow.line < stop then e = h.follow end
				end
				local place = {}
				for _i, p in ipairs(path) do place[#place + 1] = p.n end
				out[#out + 1] = { line = e.line, text = e.text:sub(at + 2), from = s.line, to = stop, path = table.concat(place, ".") }
			end
		end
	end
	return out, cut
end

-- Python's faulthandler (docs: faulthandler) prints "Fatal Python error: Segmentation fault",
-- then each thread's frames under "Current thread 0x… (most recent call first):" (the thread
-- that crashed; the others' "Thread 0x…"), or "Stack (most recent call first):", innermost
-- first: `  File "train.py", line 57 in forward`.
local FATAL = "Fatal Python error: "
local FRAMES = "(most recent call first):"

-- The innermost frame of the crashing thread printed after the line `after`, or nil.
local function innermost_frame(hits, after)
	for _i, h in ipairs(hits) do
		if h.line > after and holds(h.text, FRAMES) and not h.text:find("^%s*Thread 0x") then
			local n = h.next and h.next.text
			return n and n:find('^%s*File "') and n or nil
		end
	end
end

-- Words that say there was none of what follows: "0 errors", "no failures", "without error".
local NONE_BEFORE = { "%f[%w]0%s+$", "%f[%w]no%s+$", "%f[%w]zero%s+$", "%f[%w]without%s+$", "%f[%w]not%s+$" }

-- Whether the word at [s, e] of low is said of the run: not part of an identifier
-- (missing_keys=, error_rate, fail_count) and not counted as none.
local function asserted(low, s, e)
	local after = low:sub(e + 1):match("^%w*(.?)")
	if after == "_" or after == "=" then return false end
	local before = low:sub(1, s - 1)
	for _i, p in ipairs(NONE_BEFORE) do
		if before:find(p) then return false end
	end
	return true
end

-- Whether the line holds one of the rule's words (a word starting with a letter only at
-- the start of a word, and said of the run: see asserted), in any case.
local function says(rule, text)
	local low = text:lower()
	for _i, w in ipairs(rule.words or {}) do
		if w:find("^%a") then
			local pat, at = "%f[%w_]" .. w:gsub("%p", "%%%0"), 1
			while true do
				local s, e = low:find(pat, at)
				if not s then break end
				if asserted(low, s, e) then return true end
				at = e + 1
			end
		elseif holds(low, w) then
			return true
		end
	end
	return false
end

return {
	id = "tune.run_log",
	phase = "tune",
	evidence = { "run-log" },
	title = _("Failed NPU run diagnosis"),
	severity = "error",
	category = "runtime",
	description = _("Reads the run logs ingested with `ferry ingest run-log FILE` (stdout/stderr, tracebacks, "
		.. "CANN plog lines) and explains the failures it recognises — CANN error codes, aclnn operator "
		.. "failures, CPU fallbacks, AI CPU exceptions, HCCL timeouts and link errors, NPU out of memory, "
		.. "torch_npu import and version mismatches, CANN libraries not found, operators without an NPU "
		.. "kernel, NaN losses and overflows, crashes in native code on a fatal signal (segmentation faults, "
		.. "aborts) and processes killed with SIGKILL by the OOM killer, with or without a traceback — quoting the line and its "
		.. "number, with the cause and the fix from a cited table."),
	run = function(ctx)
		local data = ctx.data("run_errors")
		local rules, needles, index = data.rules, {}, {}
		local follows, nexts, generic, last_line = {}, {}, nil, {}
		local function need(n)
			if not index[n] then
				needles[#needles + 1] = n
				index[n] = #needles
			end
		end
		local plain = {} -- each rule's plain strings, its signals' with them
		for _i, r in ipairs(rules) do
			local list = table.move(r.needles, 1, #r.needles, 1, {})
			for _i, s in ipairs(r.signals or {}) do
				need(s.text)
				local more = signal_needles(s)
				table.move(more, 1, #more, #list + 1, list)
			end
			plain[r] = list
			for _i, n in ipairs(list) do
				need(n)
				if r.generic then follows[#follows + 1] = n end
			end
			if r.generic then generic = r end
			if r.last_line then last_line[#last_line + 1] = r end
		end
		-- lines after which Python prints a traceback that did not end the run: an exception
		-- raised in __del__ or a weakref callback, one of an atexit handler
		for _i, m in ipairs(NOT_THE_END) do need(m) end
		-- the frame of an exception group's sub-exceptions: what follows each separator
		-- the first Python frame under faulthandler's header of the crashing thread
		for _i, m in ipairs({ SEP, CLOSE, FRAMES }) do
			need(m)
			nexts[#nexts + 1] = m
		end
		local tb = generic and index[generic.needles[1]]
		for _i, a in ipairs(ctx.artifacts("run-log") or {}) do
			local what = (a.label and a.label ~= "") and _("run-log '{label}' (artifact {id})", { label = a.label, id = tostring(a.id) })
				or _("run-log artifact {id}", { id = tostring(a.id) })
			local hits, info = ctx.scan_artifact(a.id, needles, MAX_HITS, { follow = follows, next = nexts })
			if not hits then
				ctx.report{ key = a.id .. ":unreadable", message = _("{what} could not be read: {why}.", { what = what, why = tostring(info) }),
					suggestion = _("Ingest the log again (`ferry ingest run-log FILE`).") }
			else
				table.sort(hits, function(x, y) return x.line < y.line or (x.line == y.line and x.needle < y.needle) end)
				local found, order, seen, ignored, errors = {}, {}, {}, {}, {}
				local ignored_to = 0 -- the last line of a traceback that did not end the run
				for _i, h in ipairs(hits) do
					for _i, m in ipairs(NOT_THE_END) do
						if holds(h.text, m) then ignored[h.line + 1] = true end
					end
					if ignored[h.line] and h.needle == tb then ignored_to = math.max(ignored_to, (h.follow or h).line) end
					if not seen[h.line] and not ignored[h.line] then
						seen[h.line] = true
						for _i, r in ipairs(rules) do
							local ok, cap = matches(r, plain[r], h.text)
							if ok then
								seen[h.line] = r
								local f, source = found[r.id], echoed_raise(h.text)
								if r.generic then
									-- the end of the run, read below from all the tracebacks
								elseif f then
									f.more = f.more + 1
									-- quote the exception itself rather than the code raising it
									if f.source and not source then
										f.line, f.text, f.cap, f.source = h.line, h.text, cap, false
									end
								else
									found[r.id] = { rule = r, line = h.line, text = h.text, cap = cap, more = 0, source = source }
									order[#order + 1] = r.id
								end
								if not r.generic and (r.severity or "error") == "error" then errors[#errors + 1] = h.line end
								break
							end
						end
					end
				end
				local cut = false
				for _i, c in ipairs(info.counts or {}) do
					if c > MAX_HITS then cut = true end
				end
				local function report(f, r, key, message, v)
					ctx.report{
						key = a.id .. ":" .. key, severity = r.severity,
						message = _(message, v),
						suggestion = _(r.fix),
						data = { source = r.source, line = f.line, artifact = a.id },
					}
				end
				-- a specific error explains the traceback, which then need not be quoted too; a
				-- warning (an operator falling back to the CPU) does not: the run still failed
				for _i, id in ipairs(order) do
					local f, r = found[id], found[id].rule
					local cause = _(r.cause)
					if r.codes and f.cap then
						local m = module_of(data.codes or {}, f.cap)
						cause = m and _("CANN error {code} from {module}: {cause}", { code = f.cap, module = m.module, cause = cause })
							or _("CANN error {code}: {cause}", { code = f.cap, cause = cause })
					elseif f.cap then
						cause = _("{cause} ({what})", { cause = cause, what = f.cap })
					end
					local frame = holds(f.text, FATAL) and innermost_frame(hits, f.line)
					if frame then
						cause = _("{cause}; the innermost Python frame: {frame}", { cause = cause, frame = quote(frame) })
					end
					local v = { what = what, line = f.line, cause = cause, text = quote(f.text), n = f.more }
					if f.more == 0 then
						report(f, r, r.id, _("{what} line {line}: {cause} — \"{text}\"."), v)
					elseif f.more == 1 then
						report(f, r, r.id, _("{what} line {line}: {cause} — \"{text}\" (and 1 more line like it)."), v)
					else
						report(f, r, r.id, _("{what} line {line}: {cause} — \"{text}\" (and {n} more lines like it)."), v)
					end
				end
				-- how the run ended: with the exception closing the last traceback, or with each
				-- sub-exception of an exception group; or, with neither and no error, with the
				-- log's last line when it reads as an error
				local last, count = nil, 0
				if generic then last, count = last_traceback(hits, tb, ignored) end
				if last and not last.group and #errors == 0 then
					local h = last.hit
					local f = h.follow or h
					local v = { what = what, line = f.line, cause = _(generic.cause), text = quote(f.text), n = count }
					if count > 1 then
						-- the exception closing the last of several tracebacks (a chain, or ranks)
						report(f, generic, generic.id, _("{what} line {line}: {cause} — \"{text}\" (the exception closing the last of the log's {n} tracebacks)."), v)
					else
						report(f, generic, generic.id, _("{what} line {line}: {cause} — \"{text}\"."), v)
					end
				elseif last and last.group then
					local subs, left = sub_exceptions(hits, last, tb)
					-- a sub-exception a specific error explains needs no quote; those alike, one
					local alike, keys = {}, {}
					for _i, s in ipairs(subs) do
						local known = false
						for _i, l in ipairs(errors) do
							if l > s.from and l < s.to then known = true end
						end
						if not known then
							local k = alike[s.text]
							if k then
								k.more = k.more + 1
							else
								alike[s.text] = { sub = s, more = 0 }
								keys[#keys + 1] = s.text
							end
						end
					end
					for _i, t in ipairs(keys) do
						local s, more = alike[t].sub, alike[t].more
						local v = { what = what, line = s.line, cause = _(generic.cause), text = quote(s.text), path = s.path,
							group = last.hit.line, n = more }
						local key = generic.id .. ":" .. s.line
						if more == 0 then
							report(s, generic, key, _("{what} line {line}: {cause} — \"{text}\" (sub-exception {path} of the exception group at line {group})."), v)
						elseif more == 1 then
							report(s, generic, key, _("{what} line {line}: {cause} — \"{text}\" (sub-exception {path} of the exception group at line {group}; 1 more of its sub-exceptions ends the same way)."), v)
						else
							report(s, generic, key, _("{what} line {line}: {cause} — \"{text}\" (sub-exception {path} of the exception group at line {group}; {n} more of its sub-exceptions end the same way)."), v)
						end
					end
					if left[1] then
						-- with none of its sub-exceptions printed, this is all the log says of the end
						ctx.report{
							key = a.id .. ":group-cut", severity = subs[1] and "info" or "error",
							message = _("{what} line {line}: Python printed only part of the exception group that ended the run — \"{text}\": "
								.. "the sub-exceptions it left out could not be examined.", { what = what, line = left[1].line, text = quote(left[1].text) }),
							suggestion = _("Python prints at most 15 sub-exceptions of a group and 10 levels of nested groups: to see them all, catch "
								.. "the group at the top of the script and print it with traceback.TracebackException.from_exception(e, "
								.. "max_group_width=1000, max_group_depth=100).print(), or handle its parts with except*."),
							data = { line = left[1].line, artifact = a.id },
						}
					end
				elseif not last and #errors == 0 and info.last and info.last.line > ignored_to and not seen[info.last.line] then
					-- the last line, unless it is the exception of a traceback that did not end the run
					for _i, r in ipairs(last_line) do
						if says(r, info.last.text) then
							local f = info.last
							report(f, r, r.id, _("{what} line {line}: {cause} — \"{text}\"."),
								{ what = what, line = f.line, cause = _(r.cause), text = quote(f.text) })
							break
						end
					end
				end
				if cut then
					ctx.report{
						key = a.id .. ":cut", severity = "info",
						message = _("{what}: {lines} lines scanned; some strings occur more than {max} times, only their first {max} lines "
							.. "were examined.", { what = what, lines = info.lines or 0, max = MAX_HITS }),
						suggestion = _("Split the log around the failure (for example the last part before the traceback) and ingest "
							.. "that part as its own run-log."),
					}
				end
			end
		end
	end,
}
