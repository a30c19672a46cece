-- infer-optimize.overflow: the overflow data of the offline model, decoded.
--
-- With dump_debug on in the pyACL configuration, the runtime writes an OpDebug file for
-- each overflowing operator; msaccucmp.py convert turns it into JSON whose sections ("AI
-- Core", "DHA Atomic Add", "L2 Atomic Add") carry the AI Core status register in decimal
-- and the model, stream and task of the operator. Each set bit names a cause
-- (plugins/data/aicore_status.json, seed 003 §3.7.2 3); the task and stream ids name the
-- operator's own dump file ({op_type}.{op_name}.{task_id}.{stream_id}.{timestamp}).

local function field(t, name)
	-- msaccucmp writes "task_id"; the guide's sample also shows "task id"
	return t[name] or t[name:gsub("_", " ")]
end

local function hex(n)
	return string.format("0x%08X", n)
end

return {
	id = "infer-optimize.overflow",
	phase = "infer-optimize",
	evidence = { "overflow" },
	title = _("Overflow in the offline model (AI Core status register)"),
	severity = "error",
	category = "precision",
	description = _("Reads the overflow data of the offline model ingested with `ferry ingest overflow FILE` (the OpDebug "
		.. "file that dump_debug writes, converted to JSON by msaccucmp.py) and decodes the AI Core status register: "
		.. "each set bit is a cause (integer overflow, floating-point overflow, FP32-to-FP16 conversion overflow, Cube "
		.. "accumulation overflow …) with what to change, and the task and stream ids name the overflowing operator's dump file."),
	run = function(ctx)
		local data = ctx.data("aicore_status")
		for _i, a in ipairs(ctx.artifacts("overflow") or {}) do
			local what = (a.label and a.label ~= "") and _("overflow data '{label}' (artifact {id})", { label = a.label, id = tostring(a.id) })
				or _("overflow data artifact {id}", { id = tostring(a.id) })
			local text, why = ctx.read_artifact(a.id)
			local doc = text and ctx.decode_json(text)
			if type(doc) ~= "table" then
				ctx.report{ key = a.id .. ":unreadable", message = _("{what} could not be read: {why}.", { what = what, why = tostring(why or "not JSON") }),
					suggestion = _("Ingest it again (`ferry ingest overflow FILE`).") }
			else
				local any = false
				for _i, unit in ipairs(data.units) do
					local u = doc[unit]
					local status = type(u) == "table" and math.tointeger(tonumber(u.status)) or nil
					if status and status ~= 0 then
						any = true
						local meanings, advice, rest = {}, {}, status
						for _i, e in ipairs(data.entries) do
							if status & e.bit ~= 0 then
								meanings[#meanings + 1] = string.format("%s %s", hex(e.bit), _(e.what))
								advice[#advice + 1] = _(e.fix)
								rest = rest & ~e.bit
							end
						end
						if rest ~= 0 then
							meanings[#meanings + 1] = _("{bits}, bits the guide does not describe", { bits = hex(rest) })
						end
						local ids = { model = tostring(field(u, "model_id") or "?"), stream = tostring(field(u, "stream_id") or "?"),
							task = tostring(field(u, "task_id") or "?") }
						ctx.report{
							key = a.id .. ":" .. unit,
							message = _("{what}: the {unit} status register reads {status} ({hex}): {meanings}; model {model}, stream {stream}, task {task}.",
								{ what = what, unit = unit, status = tostring(status), hex = hex(status), meanings = table.concat(meanings, "; "),
								  model = ids.model, stream = ids.stream, task = ids.task }),
							suggestion = _("{advice}. The overflowing operator's own dump file is named <op_type>.<op_name>.{task}.{stream}.<timestamp>: convert it with `msaccucmp.py convert -d FILE -out DIR` to read its inputs and outputs.",
								{ advice = table.concat(advice, "; "), task = ids.task, stream = ids.stream }),
						}
					end
				end
				if not any then
					ctx.report{
						key = a.id .. ":clean", severity = "info",
						message = _("{what}: every status register reads 0, no overflow is recorded.", { what = what }),
					}
				end
			end
		end
	end,
}
