-- infer-convert.atc_log: diagnosis of converter logs ingested with `ferry ingest atc-log FILE`.
--
-- Every line is read. An error code (E or EZ/EE/… followed by digits: E10001, E19999, EZ3002)
-- anywhere on a line is one finding per code, quoting that line with its number: a code
-- plugins/data/atc.json knows gets its diagnosis and fix, any other code still shows its
-- line. The other patterns of atc.json ("build op model failed", shape inference) are matched
-- the same way. A log with none of these but "ATC run failed" or an "[ERROR]" line gets the
-- generic advice, quoting the first "[ERROR]" line (or the failure line).
--
-- A log with neither "ATC run success" nor any failure did not finish (ATC was killed or the
-- log is cut short): an error, since no model came out of it.
--
-- A failed log whose model (the path named by `--model` in the log, for the same
-- `--soc_version` and `--output` when both logs name them) a later atc-log (higher artifact id) converted
-- successfully ("ATC run success") is history: it becomes one info finding naming the later
-- log instead of errors. Two exports both called model.onnx in different folders are two
-- models. A log that says "ATC run success" is not a failure, whatever its INFO lines say;
-- the patterns other than error codes are read on error lines only ("[ERROR]", an error
-- code), so `--log=info`'s "InferShape for node Conv_0 success" is not a shape failure. The
-- wording of ATC's messages is unverified in ferry's reference, so the findings quote the
-- log line itself.

local words = require("words")

local MAX_QUOTE = 160

local function quote(line)
	return words.clip((line:gsub("^%s+", "")), MAX_QUOTE)
end

-- the error codes on a line, in order (E + a digit or capital letter + 4 digits, whole word)
local function codes(line)
	local out = {}
	for c in line:gmatch("%f[%w]E[%u%d]%d%d%d%d%f[%W]") do out[#out + 1] = c end
	return out
end

-- the value of a command-line option the log echoes (--model=X, --model X), or nil
local function option_of(line, name)
	return line:match("%-%-" .. name .. "[=%s]+\"?([^%s\"]+)")
end

-- Whether two --model (or --output) paths surely name the same file: equal once "./"
-- steps are dropped, or one the tail of the other at a folder boundary when the shorter
-- still names a folder (models/resnet.onnx and /home/u/proj/models/resnet.onnx). A bare
-- file name could be any folder's: model.onnx run inside /data/detector is not
-- /data/classifier/model.onnx, and a success there must not turn the failure into history.
local function same_model(a, b)
	if not a or not b then return false end
	local function norm(p) return ("/" .. p):gsub("/%./", "/"):gsub("/%./", "/"):sub(2) end
	a, b = norm(a), norm(b)
	if a == b then return true end
	local long, short = a, b
	if #short > #long then long, short = short, long end
	return short:find("/", 1, true) ~= nil and long:sub(-#short - 1) == "/" .. short
end

-- one pass over a log: {model=, ok=, failed=, failed_line=, first_error=, hits={...}}
local function scan(text, rules)
	local s = { hits = {}, seen = {} }
	local pos, n = 1, 0
	while pos <= #text do
		local nl = text:find("\n", pos, true) or (#text + 1)
		local line = text:sub(pos, nl - 1):gsub("\r$", "")
		pos = nl + 1
		n = n + 1
		s.last = { line = n, text = line }
		s.model = s.model or option_of(line, "model")
		s.soc = s.soc or option_of(line, "soc_version")
		s.output = s.output or option_of(line, "output")
		if line:find("ATC run success", 1, true) then s.ok = true end
		if line:find("ATC run failed", 1, true) and not s.failed then s.failed, s.failed_line = n, line end
		if not s.first_error and line:find("[ERROR]", 1, true) then s.first_error = { line = n, text = line } end
		local cs = codes(line)
		for _i, c in ipairs(cs) do
			if not s.seen[c] then
				s.seen[c] = true
				s.hits[#s.hits + 1] = { code = c, line = n, text = line }
			end
		end
		local error_line = #cs > 0 or line:find("[ERROR]", 1, true) ~= nil
		for _i, r in ipairs(rules) do
			if error_line and not r.fallback and not r.pattern:match("^E[%u%d]%d%d%d%d$") and not s.seen[r.id] and line:find(r.pattern) then
				s.seen[r.id] = true
				s.hits[#s.hits + 1] = { rule = r, line = n, text = line }
			end
		end
	end
	return s
end

return {
	id = "infer-convert.atc_log",
	phase = "infer-convert",
	evidence = { "atc-log" },
	title = _("ATC conversion log diagnosis"),
	severity = "error",
	category = "convert",
	description = _("Reads the ATC logs ingested with `ferry ingest atc-log FILE`, quotes every error code and "
		.. "error line with its line number, explains the failures it recognises (invalid parameters, "
		.. "unsupported operators, shape inference, operator build failures) with a fix for each, and "
		.. "treats a failed log as history once a later log converted the same model successfully."),
	run = function(ctx)
		local rules = ctx.data("atc").errors
		local by_code, fallback = {}, nil
		for _i, r in ipairs(rules) do
			if r.fallback then fallback = r
			elseif r.pattern:match("^E[%u%d]%d%d%d%d$") then by_code[r.pattern] = r end
		end
		local logs = {}
		for _i, a in ipairs(ctx.artifacts("atc-log") or {}) do
			local text = ctx.read_artifact(a.id)
			if text then
				local s = scan(text, rules)
				s.a = a
				s.what = (a.label and a.label ~= "") and _("atc-log '{label}' (artifact {id})", { label = a.label, id = tostring(a.id) })
					or _("atc-log artifact {id}", { id = tostring(a.id) })
				logs[#logs + 1] = s
			end
		end
		for _i, s in ipairs(logs) do
			local a = s.a
			-- a log that neither ends in success nor says why it failed: ATC was killed (out
			-- of memory, a time limit) or the log was cut short; no model came out of it
			local unfinished = not s.ok and not s.failed and not s.first_error and #s.hits == 0
			local bad = (s.failed or s.first_error or #s.hits > 0 or unfinished) and not (s.ok and not s.failed)
			local later
			if bad and s.model then
				for _i, o in ipairs(logs) do
					if o.ok and not o.failed and same_model(o.model, s.model) and (not s.soc or not o.soc or o.soc == s.soc)
						and (not s.output or not o.output or same_model(o.output, s.output))
						and (tonumber(o.a.id) or 0) > (tonumber(a.id) or 0) then
						later = o
					end
				end
			end
			if later then
				local first = s.hits[1] or s.first_error or (s.failed and { line = s.failed, text = s.failed_line }) or s.last
				ctx.report{
					key = a.id .. ":superseded", severity = "info",
					message = _("{what}: the conversion of {model} failed (line {line}: \"{text}\"), but {later} converted {model} successfully later; this log is history.",
						{ what = s.what, model = s.model, line = first.line, text = quote(first.text), later = later.what }),
					suggestion = _("Nothing to do for this log; keep it as a record of the fix."),
				}
			elseif unfinished then
				ctx.report{
					key = a.id .. ":unfinished", severity = "error",
					message = _("{what}: the conversion did not finish: the log ends at line {line} (\"{text}\") without \"ATC run success\" or \"ATC run failed\".",
						{ what = s.what, line = s.last and s.last.line or 0, text = quote(s.last and s.last.text or "") }),
					suggestion = _("ATC was stopped (out of host memory, a time limit, a closed terminal) or the log was cut short: run it again with its whole output saved (`atc ... 2>&1 | tee atc.log`), watching host memory for a large model, and ingest that log."),
				}
			elseif bad then
				for _i, h in ipairs(s.hits) do
					local r = h.rule or by_code[h.code]
					if r then
						ctx.report{
							key = a.id .. ":" .. r.id, severity = r.severity,
							message = _("{what} line {line}: {diagnosis} — \"{text}\".", { what = s.what, line = h.line, diagnosis = _(r.diagnosis), text = quote(h.text) }),
							suggestion = _(r.fix),
							data = { source = r.source },
						}
					else
						ctx.report{
							key = a.id .. ":" .. h.code, severity = "error",
							message = _("{what} line {line}: error code {code}, which ferry has no diagnosis for — \"{text}\".",
								{ what = s.what, line = h.line, code = h.code, text = quote(h.text) }),
							suggestion = _("Look the code up in the error-code reference of your CANN version; the quoted line and the lines before it name the operator or parameter at fault."),
						}
					end
				end
				if #s.hits == 0 and fallback then
					local at = s.first_error or { line = s.failed, text = s.failed_line }
					ctx.report{
						key = a.id .. ":" .. fallback.id, severity = fallback.severity,
						message = _("{what} line {line}: {diagnosis} — \"{text}\".", { what = s.what, line = at.line, diagnosis = _(fallback.diagnosis), text = quote(at.text) }),
						suggestion = _(fallback.fix),
					}
				end
			end
		end
	end,
}
