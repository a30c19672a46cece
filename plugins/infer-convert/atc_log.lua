-- infer-convert.atc_log: diagnosis of converter logs ingested with `ferry ingest atc-log FILE`.
--
-- Each line is matched against the error patterns of plugins/data/atc.json (E-codes,
-- "build op model failed", shape inference failures); every pattern found is one finding
-- naming the artifact and the first line it occurs on. "ATC run failed" alone (no known
-- pattern) gets the generic advice. The wording of ATC's messages is unverified in ferry's
-- reference, so the findings quote the log line itself.

local MAX_QUOTE = 160

return {
	id = "infer-convert.atc_log",
	phase = "infer-convert",
	title = "ATC conversion log diagnosis",
	severity = "error",
	category = "convert",
	description = "Reads the ATC logs ingested with `ferry ingest atc-log FILE` and explains the failures it "
		.. "recognises (invalid parameters, unsupported operators, shape inference, operator build "
		.. "failures) with a fix for each.",
	run = function(ctx)
		local rules = ctx.data("atc").errors
		for _, a in ipairs(ctx.artifacts("atc-log") or {}) do
			local text = ctx.read_artifact(a.id)
			if text then
				local found, fallback, n = {}, nil, 0
				local pos = 1
				while pos <= #text do
					local nl = text:find("\n", pos, true) or (#text + 1)
					local line = text:sub(pos, nl - 1):gsub("\r$", "")
					pos = nl + 1
					n = n + 1
					for _, r in ipairs(rules) do
						if not found[r.id] and line:find(r.pattern) then
							found[r.id] = { rule = r, line = n, text = line }
						end
					end
				end
				local what = (a.label and a.label ~= "") and string.format("atc-log '%s' (artifact %s)", a.label, tostring(a.id))
					or ("atc-log artifact " .. tostring(a.id))
				local specific = false
				for _, r in ipairs(rules) do
					local f = found[r.id]
					if f and not r.fallback then
						specific = true
						local quote = f.text:gsub("^%s+", "")
						if #quote > MAX_QUOTE then quote = quote:sub(1, MAX_QUOTE) .. "…" end
						ctx.report{
							key = a.id .. ":" .. r.id, severity = r.severity,
							message = string.format("%s line %d: %s — \"%s\".", what, f.line, r.diagnosis, quote),
							suggestion = r.fix,
							data = { source = r.source },
						}
					elseif f then
						fallback = f
					end
				end
				if fallback and not specific then
					ctx.report{
						key = a.id .. ":" .. fallback.rule.id, severity = fallback.rule.severity,
						message = string.format("%s line %d: %s.", what, fallback.line, fallback.rule.diagnosis),
						suggestion = fallback.rule.fix,
					}
				end
			end
		end
	end,
}
