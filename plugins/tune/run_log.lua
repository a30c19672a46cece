-- tune.run_log: diagnosis of the NPU runs ingested with `ferry ingest run-log FILE`.
--
-- The log is scanned by the host (ctx.scan_artifact), line by line and at any size, for
-- the plain strings of plugins/data/run_errors.json; each line found is explained by the
-- first rule whose needle and pattern it matches. Every rule found is one finding naming
-- the artifact, the line number of its first occurrence, the line itself (at most
-- MAX_QUOTE bytes) and how many more lines it explains. A Python traceback no rule
-- explains gets the generic finding, which quotes the exception that ended the run (the
-- line after the last traceback's frames: of chained exceptions the last one, of a message
-- of several lines its first) with its line number; a log of a run that went well gives none. The scan
-- keeps at most MAX_HITS lines per needle, so a rule first met after as many lines of
-- another rule with the same needle can be missed; such cut scans are said in the finding.

local words = require("words")

local MAX_QUOTE = 200
local MAX_HITS = 200

local function quote(text)
	return words.clip(text:gsub("^%s+", ""):gsub("%s+$", ""), MAX_QUOTE)
end

local function matches(rule, line)
	local held = false
	for _i, n in ipairs(rule.needles) do
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

local function module_of(codes, code)
	for _i, c in ipairs(codes) do
		if code:sub(1, #c.prefix) == c.prefix then return c end
	end
end

-- A traceback's echo of the source line that raised (`    raise AssertionError("...")`),
-- which holds the message too, one line above the exception itself.
local function echoed_raise(text)
	return text:match("^%s+raise[%s(]") ~= nil
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
		.. "kernel, NaN losses and overflows — quoting the line and its "
		.. "number, with the cause and the fix from a cited table."),
	run = function(ctx)
		local data = ctx.data("run_errors")
		local rules, needles, index = data.rules, {}, {}
		local follows = {}
		for _i, r in ipairs(rules) do
			for _i, n in ipairs(r.needles) do
				if not index[n] then
					needles[#needles + 1] = n
					index[n] = #needles
				end
				if r.generic then follows[#follows + 1] = n end
			end
		end
		-- lines after which Python prints a traceback that did not end the run: an exception
		-- raised in __del__ or a weakref callback, one of an atexit handler
		for _i, m in ipairs(NOT_THE_END) do
			if not index[m] then
				needles[#needles + 1] = m
				index[m] = #needles
			end
		end
		for _i, a in ipairs(ctx.artifacts("run-log") or {}) do
			local what = (a.label and a.label ~= "") and _("run-log '{label}' (artifact {id})", { label = a.label, id = tostring(a.id) })
				or _("run-log artifact {id}", { id = tostring(a.id) })
			local hits, info = ctx.scan_artifact(a.id, needles, MAX_HITS, { follow = follows })
			if not hits then
				ctx.report{ key = a.id .. ":unreadable", message = _("{what} could not be read: {why}.", { what = what, why = tostring(info) }),
					suggestion = _("Ingest the log again (`ferry ingest run-log FILE`).") }
			else
				table.sort(hits, function(x, y) return x.line < y.line or (x.line == y.line and x.needle < y.needle) end)
				local found, order, seen, ignored = {}, {}, {}, {}
				for _i, h in ipairs(hits) do
					for _i, m in ipairs(NOT_THE_END) do
						if h.text:find(m, 1, true) then ignored[h.line + 1] = true end
					end
					if not seen[h.line] and not ignored[h.line] then
						seen[h.line] = true
						for _i, r in ipairs(rules) do
							local ok, cap = matches(r, h.text)
							if ok then
								local f, source = found[r.id], echoed_raise(h.text)
								if r.generic then
									-- the exception that ended the run: the one closing the last traceback
									-- (of a chain, the last one), not the header
									local e = h.follow or h
									if f then
										f.more, f.line, f.text = f.more + 1, e.line, e.text
									else
										found[r.id] = { rule = r, line = e.line, text = e.text, more = 0 }
										order[#order + 1] = r.id
									end
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
								break
							end
						end
					end
				end
				local cut = false
				for _i, c in ipairs(info.counts or {}) do
					if c > MAX_HITS then cut = true end
				end
				-- a specific error explains the traceback, which then need not be quoted too; a
				-- warning (an operator falling back to the CPU) does not: the run still failed
				local specific = false
				for _i, id in ipairs(order) do
					local r = found[id].rule
					if not r.generic and (r.severity or "error") == "error" then specific = true end
				end
				for _i, id in ipairs(order) do
					local f, r = found[id], found[id].rule
					if not r.generic or not specific then
						local cause = _(r.cause)
						if r.codes and f.cap then
							local m = module_of(data.codes or {}, f.cap)
							cause = m and _("CANN error {code} from {module}: {cause}", { code = f.cap, module = m.module, cause = cause })
								or _("CANN error {code}: {cause}", { code = f.cap, cause = cause })
						elseif f.cap then
							cause = _("{cause} ({what})", { cause = cause, what = f.cap })
						end
						local v = { what = what, line = f.line, cause = cause, text = quote(f.text), n = f.more }
						local message
						if r.generic and f.more > 0 then
							-- the exception closing the last of several tracebacks (a chain, or ranks)
							v.n = f.more + 1
							message = _("{what} line {line}: {cause} — \"{text}\" (the exception closing the last of the log's {n} tracebacks).", v)
						elseif f.more == 0 then
							message = _("{what} line {line}: {cause} — \"{text}\".", v)
						elseif f.more == 1 then
							message = _("{what} line {line}: {cause} — \"{text}\" (and 1 more line like it).", v)
						else
							message = _("{what} line {line}: {cause} — \"{text}\" (and {n} more lines like it).", v)
						end
						ctx.report{
							key = a.id .. ":" .. r.id, severity = r.severity,
							message = message,
							suggestion = _(r.fix),
							data = { source = r.source, line = f.line, artifact = a.id },
						}
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
