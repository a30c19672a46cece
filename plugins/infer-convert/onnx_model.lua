-- infer-convert.onnx_model: the operator inventory of ingested ONNX models.
--
-- For each `ferry ingest onnx FILE` artifact, read by the host (ctx.onnx: a streaming
-- reader in C, any size, weights skipped): the ai.onnx opset against the range ATC
-- reads on every CANN release from 8.0 on (plugins/data/atc.json), operators from custom
-- domains (ATC parses the standard ai.onnx operators; others need a custom operator
-- plugin: reference tune-and-inference-formats §4, E19010/EZ3003 "custom op"), the
-- operator types by count, external data files that are missing or short, and the atc
-- command with the model's file name, real input names and shapes (plugins/lib/atc.lua).
-- With a target SoC (`target.soc`), the standard operators are checked against the vendor's
-- published ONNX operator list for its family (plugins/data/onnx_ops_soc.json: the Atlas
-- inference series); for a SoC without a published list they are listed, not judged.

local atc_cmd = require("atc")

local TOP = 12

-- The onnx_ops_soc.json family of a SoC name (prefix match, case-insensitive) and its
-- operators as a lower-case set, or nil.
local function soc_family(ctx, soc)
	if not soc then return nil end
	local l = soc:lower()
	for _i, e in ipairs(ctx.data("onnx_ops_soc").entries) do
		for _i, prefix in ipairs(e.socs) do
			if l:sub(1, #prefix) == prefix:lower() then
				local set = {}
				for _i, op in ipairs(e.ops) do set[op:lower()] = true end
				return e, set
			end
		end
	end
	return nil
end

-- "1.5 GB", "640 KB": a size in bytes for a message.
local function size_text(n)
	local units = { "bytes", "KB", "MB", "GB", "TB" }
	local u = 1
	while n >= 1024 and u < #units do n = n / 1024 u = u + 1 end
	return u == 1 and string.format("%d bytes", n) or string.format("%.1f %s", n, units[u])
end

-- "[batch,3,224,224]": the dims as read (symbolic names kept, -1 for unknown).
local function dims_text(dims)
	if not dims then return "[?]" end
	local t = {}
	for i, d in ipairs(dims) do t[i] = tostring(d) end
	return "[" .. table.concat(t, ",") .. "]"
end

return {
	id = "infer-convert.onnx_model",
	phase = "infer-convert",
	title = _("ONNX model inventory: opset, operators, inputs"),
	severity = "info",
	category = "convert",
	description = _("Reads the ONNX models ingested with `ferry ingest onnx FILE` (of any size, weights never loaded): "
		.. "the opset they use, operators outside the standard ai.onnx domain (which ATC cannot parse without a custom "
		.. "operator plugin), standard operators missing from the vendor's ONNX operator list for the target SoC's "
		.. "family (onnx_ops_soc.json), external data files that are missing, the operator types by count and the "
		.. "atc command for the model's inputs."),
	run = function(ctx)
		local atc = ctx.data("atc")
		local lo, hi = atc.safe_opset.min, atc.safe_opset.max
		local soc = ctx.config("target.soc")
		if soc and not soc:match("^Ascend[%w_]+$") then soc = nil end
		for _i, a in ipairs(ctx.artifacts("onnx") or {}) do
			local what = (a.label and a.label ~= "") and string.format("ONNX model '%s' (artifact %s)", a.label, tostring(a.id))
				or ("ONNX model artifact " .. tostring(a.id))
			local m, why = ctx.onnx(a.id)
			if not m then
				ctx.report{
					key = "unreadable:" .. a.id, severity = "warning",
					message = what .. " could not be read: " .. tostring(why) .. ".",
					suggestion = "Export the model again (the file may have been cut short or changed after ingest) and ingest the new file.",
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
				for _i, o in ipairs(m.ops) do
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
				local fam, set = soc_family(ctx, soc)
				local off = {}
				for _i, o in ipairs(m.ops) do
					if fam and (o.domain == "" or o.domain == "ai.onnx") and not set[o.op_type:lower()] then
						off[#off + 1] = string.format("%s (%d)", o.op_type, o.count)
					end
				end
				if #off > 0 then
					ctx.report{
						key = "soc-ops:" .. a.id, severity = "warning",
						message = string.format("%s uses operators that are not on the vendor's ONNX operator list for %s (%s, CANN %s): %s.",
							what, soc, fam.product, fam.cann, table.concat(off, ", ")),
						suggestion = "Check each against the operator list of your CANN version; if it is missing there too, replace it "
							.. "in the PyTorch model (Loop: unroll or move the loop out of the exported graph), simplify the model "
							.. "(onnxsim folds many of them away), or re-export at another opset.",
						data = { source = fam.source },
					}
				elseif soc and not fam and #m.ops > 0 then
					ctx.report{
						key = "soc-ops:" .. a.id, severity = "info",
						message = string.format("The vendor publishes no ONNX operator list for %s, so %s's operators are not checked "
							.. "against one (its ONNX list covers the Atlas inference series only).", soc, what),
						suggestion = "Convert once with atc and read its log (`ferry ingest atc-log`): unsupported operators show up "
							.. "there as E19010/EZ3003 errors.",
					}
				end
				for _i, f in ipairs(m.external) do
					if f.problem then
						ctx.report{
							key = "external:" .. a.id .. ":" .. f.location, severity = "error",
							message = string.format("%s keeps %d tensors (%s) in external data, but %s.", what, f.tensors,
								size_text(f.bytes), f.problem),
							suggestion = "Keep the data files next to the .onnx file, as onnx.save_model(..., save_as_external_data=True) "
								.. "wrote them, before ingesting and converting: ATC reads them from the model's directory.",
						}
					end
				end
				local parts = {}
				for i = 1, math.min(TOP, #m.ops) do
					parts[#parts + 1] = string.format("%s %d", m.ops[i].op_type, m.ops[i].count)
				end
				local ins = {}
				for _i, vi in ipairs(m.inputs) do ins[#ins + 1] = vi.name .. dims_text(vi.dims) end
				ctx.metric("onnx_nodes", m.nodes_total)
				local file = m.file or ((a.label and a.label ~= "") and (a.label .. ".onnx")) or "model.onnx"
				local cmd, notes, form = atc_cmd.command(ctx, { model = file, soc = soc, inputs = m.inputs })
				local extra = {}
				if m.subgraphs > 0 then extra[#extra + 1] = string.format("%d subgraphs (Loop/If/Scan)", m.subgraphs) end
				if #m.external > 0 then
					extra[#extra + 1] = string.format("%d tensor%s in %d external data file%s", m.initializers.external,
						m.initializers.external == 1 and "" or "s", #m.external, #m.external == 1 and "" or "s")
				end
				ctx.report{
					key = "inventory:" .. a.id,
					message = string.format("%s: opset %s, %d nodes, %d operator types (%s%s); inputs %s; %d initializer%s, %s%s.",
						what, v and tostring(v) or "?", m.nodes_total, #m.ops, table.concat(parts, ", "), #m.ops > TOP and ", …" or "",
						#ins > 0 and table.concat(ins, " ") or "none", m.initializers.count, m.initializers.count == 1 and "" or "s", size_text(m.initializers.bytes),
						#extra > 0 and ("; " .. table.concat(extra, ", ")) or ""),
					suggestion = "Convert it with: " .. cmd .. (#notes > 0 and (" — " .. table.concat(notes, "; ")) or "") .. ".",
					data = { command = cmd, form = form },
				}
			end
		end
	end,
}
