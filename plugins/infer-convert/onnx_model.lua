-- infer-convert.onnx_model: the operator inventory of ingested ONNX models.
--
-- For each `ferry ingest onnx FILE` artifact: the ai.onnx opset against the range ATC
-- reads on every CANN release from 8.0 on (plugins/data/atc.json), operators from custom
-- domains (ATC parses the standard ai.onnx operators; others need a custom operator
-- plugin: reference tune-and-inference-formats §4, E19010/EZ3003 "custom op"), the
-- operator types by count, and the atc command with the model's real input names and
-- shapes. ferry carries no per-operator support list of ATC, so standard operators are
-- listed, not judged.

local onnx = require("onnx")

local TOP = 12

return {
	id = "infer-convert.onnx_model",
	phase = "infer-convert",
	title = "ONNX model inventory: opset, operators, inputs",
	severity = "info",
	category = "convert",
	description = "Decodes the ONNX models ingested with `ferry ingest onnx FILE`: the opset they use, "
		.. "operators outside the standard ai.onnx domain (which ATC cannot parse without a custom "
		.. "operator plugin), the operator types by count and the atc command for the model's inputs.",
	run = function(ctx)
		local atc = ctx.data("atc")
		local lo, hi = atc.safe_opset.min, atc.safe_opset.max
		local soc = ctx.config("target.soc")
		if soc and not soc:match("^Ascend[%w_]+$") then soc = nil end
		for _, a in ipairs(ctx.artifacts("onnx") or {}) do
			local what = (a.label and a.label ~= "") and string.format("ONNX model '%s' (artifact %s)", a.label, tostring(a.id))
				or ("ONNX model artifact " .. tostring(a.id))
			local bytes, why = ctx.read_artifact(a.id)
			local m
			if bytes then m, why = onnx.read(bytes) end
			if not m then
				ctx.report{
					key = "unreadable:" .. a.id, severity = "warning",
					message = what .. " could not be read: " .. tostring(why) .. ".",
					suggestion = "Check the file with `python -c \"import onnx; onnx.checker.check_model('model.onnx')\"` and ingest it again; "
						.. "models over 2 GB keep their weights in external data files next to the .onnx file.",
				}
			else
				local v = m.opsets[""]
				if v and (v < lo or v > hi) then
					ctx.report{
						key = "opset:" .. a.id, severity = "warning",
						message = string.format("%s uses ai.onnx opset %d, outside %d-%d, the opsets ATC reads on every CANN release from 8.0 on.", what, v, lo, hi),
						suggestion = string.format("Re-export with opset_version between %d and %d, or check that your CANN version's ATC accepts opset %d (7.0 and 9.1 read up to 18).", lo, hi, v),
					}
				end
				local custom = {}
				for _, o in ipairs(m.ops) do
					if o.domain ~= "" and o.domain ~= "ai.onnx" then
						custom[#custom + 1] = string.format("%s (%s, %d)", o.op_type, o.domain, o.count)
					end
				end
				if #custom > 0 then
					ctx.report{
						key = "custom:" .. a.id, severity = "warning",
						message = string.format("%s contains operators outside the standard ai.onnx domain, which ATC has no parser for: %s.",
							what, table.concat(custom, ", ")),
						suggestion = "Export without these operators (they usually come from an optimiser such as onnxruntime's transformer "
							.. "fusions, or from custom autograd functions): export the plain PyTorch model, or replace the operators before export.",
					}
				end
				local parts = {}
				for i = 1, math.min(TOP, #m.ops) do
					parts[#parts + 1] = string.format("%s %d", m.ops[i].op_type, m.ops[i].count)
				end
				local shapes, dynamic = {}, false
				for _, vi in ipairs(m.inputs) do
					local dims = {}
					for _, d in ipairs(vi.dims or {}) do
						if type(d) == "number" then dims[#dims + 1] = tostring(d) else dims[#dims + 1] = "-1" dynamic = true end
					end
					shapes[#shapes + 1] = vi.name .. ":" .. table.concat(dims, ",")
				end
				ctx.metric("onnx_nodes", m.nodes)
				local out = (a.label and a.label:match("^[%w_.-]+$")) and a.label or "model"
				local cmd = string.format('atc --model=%s.onnx --framework=5 --output=%s --soc_version=%s --input_shape="%s"',
					out, out, soc or "<SoC, e.g. Ascend310P3>", table.concat(shapes, ";"))
				local notes = {}
				if dynamic then
					notes[#notes + 1] = "-1 marks dynamic dimensions: replace them by fixed sizes, or keep -1 for the batch and add "
						.. "--dynamic_batch_size=\"1,2,4,8\""
				end
				if not soc then notes[#notes + 1] = "set the SoC with `ferry config target.soc NAME`" end
				ctx.report{
					key = "inventory:" .. a.id,
					message = string.format("%s: opset %s, %d nodes, %d operator types (%s%s).", what, v and tostring(v) or "?", m.nodes, #m.ops,
						table.concat(parts, ", "), #m.ops > TOP and ", …" or ""),
					suggestion = "Convert it with: " .. cmd .. (#notes > 0 and (" — " .. table.concat(notes, "; ")) or "") .. ".",
					data = { command = cmd },
				}
			end
		end
	end,
}
