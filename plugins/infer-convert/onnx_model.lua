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
-- For that family, each operator whose page lists opsets (plugins/data/onnx_op_opsets.json)
-- that leave out the model's ai.onnx opset is a warning (the pages may lag ATC), with the
-- opset to re-export at: the highest that every recorded operator of the model lists, an
-- operator ONNX added after that opset excepted (plugins/data/onnx_op_since.json: the
-- exporter writes LayerNormalization, added at 17, as smaller operators before it). The
-- operators with no opsets recorded are listed once, as info.

local words = require("words")
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

-- The opsets each operator's page lists (onnx_op_opsets.json) when the table covers the
-- family: lower-case name -> { name, opsets (list), set, source }, and the table; else nil.
local function op_opsets(ctx, fam)
	local t = ctx.data("onnx_op_opsets")
	if not fam or t.family ~= fam.name then return nil end
	local by = {}
	for _i, e in ipairs(t.entries) do
		local set = {}
		for _i, v in ipairs(e.opsets) do set[v] = true end
		by[e.name:lower()] = { name = e.name, opsets = e.opsets, set = set, source = e.source }
	end
	return by, t
end

-- "v10/v11/v12/v14": a page's opsets as the page writes them.
local function opsets_text(list)
	local t = {}
	for i, v in ipairs(list) do t[i] = "v" .. v end
	return table.concat(t, "/")
end

-- The opset ONNX introduced each standard operator at (onnx_op_since.json): lower-case
-- name -> opset. An operator absent from it counts as always there.
local function since_opsets(ctx)
	local by = {}
	for _i, e in ipairs(ctx.data("onnx_op_since").entries) do by[e.name:lower()] = e.since end
	return by
end

-- 1 when operator record r must be on its page at opset w: it exists at w (an exporter
-- targeting an older opset cannot emit it and writes smaller operators instead).
local function needed_at(r, w, since)
	return (since[r.name:lower()] or 0) <= w
end

-- The opset to re-export at: the highest one whose every recorded operator of the model
-- that exists at it lists it, preferring 11-17 (the range current exporters and ATC
-- releases share); nil if none. Second: the recorded operators ONNX added after it, as
-- "LayerNormalization (17)".
local function common_opset(recs, since)
	local best, best_pref
	for w = 1, 30 do
		local all = #recs > 0
		for _i, r in ipairs(recs) do
			if needed_at(r, w, since) and not r.set[w] then all = false break end
		end
		if all then
			best = w
			if w >= 11 and w <= 17 then best_pref = w end
		end
	end
	local n = best_pref or best
	local later = {}
	for _i, r in ipairs(n and recs or {}) do
		if not needed_at(r, n, since) then
			later[#later + 1] = string.format("%s (%d)", r.name, since[r.name:lower()])
		end
	end
	return n, later
end

-- "1.5 GB", "640 KB": a size in bytes for a message.
local function size_text(n)
	local units = { "bytes", "KB", "MB", "GB", "TB" }
	local u = 1
	while n >= 1024 and u < #units do n = n / 1024 u = u + 1 end
	return u == 1 and string.format("%d bytes", n) or string.format("%.1f %s", n, units[u])
end

return {
	id = "infer-convert.onnx_model",
	phase = "infer-convert",
	evidence = { "onnx", "settings" }, -- target.soc picks the operator list and the atc command
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
			local what = atc_cmd.model_name(a)
			local m, why = ctx.onnx(a.id)
			if not m then
				ctx.report{
					key = "unreadable:" .. a.id, severity = "warning",
					message = _("{what} could not be read: {why}.", { what = what, why = tostring(why) }),
					suggestion = _("Export the model again (the file may have been cut short or changed after ingest) and ingest the new file."),
				}
			else
				local v = m.opsets[""]
				if v and (v < lo or v > hi) then
					ctx.report{
						key = "opset:" .. a.id, severity = "warning",
						message = _("{what} uses ai.onnx opset {v}, outside {lo}-{hi}, the opsets ATC reads on every CANN release from 8.0 on.", { what = what, v = v, lo = lo, hi = hi }),
						suggestion = _("Re-export with opset_version between {lo} and {hi}, or check that your CANN version's ATC accepts opset {v} (7.0 and 9.1 read up to 18).", { lo = lo, hi = hi, v = v }),
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
						message = _("{what} contains operators outside the standard ai.onnx domain, which ATC has no parser for: {ops}.",
							{ what = what, ops = table.concat(custom, ", ") }),
						suggestion = _("Export without these operators (they usually come from an optimiser such as onnxruntime's transformer fusions, or from custom autograd functions): export the plain PyTorch model, or replace the operators before export. An operator that must stay is developed and deployed as a custom operator before conversion: ATC matches a model's operators in the custom operator library first, then in the built-in one (003 §3.6)."),
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
						message = _("{what} uses operators that are not on the vendor's ONNX operator list for {soc} ({product}, CANN {cann}): {ops}.",
							{ what = what, soc = soc, product = fam.product, cann = fam.cann, ops = table.concat(off, ", ") }),
						suggestion = _("Check each against the operator list of your CANN version; if it is missing there too, replace it in the PyTorch model (Loop: unroll or move the loop out of the exported graph), simplify the model (onnxsim folds many of them away), re-export at another opset, or develop and deploy it as a custom operator before conversion (ATC looks in the custom operator library first, 003 §3.6)."),
						data = { source = fam.source },
					}
				elseif soc and not fam and #m.ops > 0 then
					ctx.report{
						key = "soc-ops:" .. a.id, severity = "info",
						message = _("The vendor publishes no ONNX operator list for {soc}, so {what}'s operators are not checked against one (its ONNX list covers the Atlas inference series only).",
							{ soc = soc, what = what }),
						suggestion = _("Convert once with atc and read its log (`ferry ingest atc-log`): unsupported operators show up there as E19010/EZ3003 errors."),
					}
				end
				local by, opt = op_opsets(ctx, fam)
				if by and v then
					local recs, excluded, unrecorded = {}, {}, {}
					for _i, o in ipairs(m.ops) do
						if (o.domain == "" or o.domain == "ai.onnx") and set[o.op_type:lower()] then
							local r = by[o.op_type:lower()]
							if r then
								recs[#recs + 1] = r
								if not r.set[v] then excluded[#excluded + 1] = { op = o, rec = r } end
							else
								unrecorded[#unrecorded + 1] = string.format("%s (%d)", o.op_type, o.count)
							end
						end
					end
					-- one re-export serves the whole model: its advice is made once
					local n, later = common_opset(recs, since_opsets(ctx))
					local reexport
					if n and #excluded > 0 then
						local atc_once = _("or convert once with atc at opset {v} and read its log (`ferry ingest atc-log`), since the pages may lag what ATC accepts.", { v = v })
						reexport = #later > 0
							and _("Re-export with torch.onnx.export(..., opset_version={n}), the highest opset that the page of every operator of this model lists, leaving out those ONNX added after it: {later}, which an exporter targeting opset {n} writes as smaller operators (or refuses to export); {atc_once}",
								{ n = n, later = words.join(later), atc_once = atc_once })
							or _("Re-export with torch.onnx.export(..., opset_version={n}), the highest opset that the page of every operator of this model with recorded opsets lists; {atc_once}", { n = n, atc_once = atc_once })
					end
					for _i, x in ipairs(excluded) do
						ctx.report{
							key = "op-opset:" .. a.id .. ":" .. x.rec.name, severity = "warning",
							message = _("{op} ({count}) in {what}: the vendor's operator page lists opsets {opsets} for it, not the model's ai.onnx opset {v} ({release}).",
								{ what = what, op = x.rec.name, count = x.op.count, v = v, opsets = opsets_text(x.rec.opsets), release = opt.release }),
							suggestion = reexport
								or _("No single opset is on the page of every operator of this model that exists at it. Convert once with atc and read its log (`ferry ingest atc-log`), or replace {op} in the PyTorch model.", { op = x.rec.name }),
							data = { source = x.rec.source },
						}
					end
					if #unrecorded > 0 then
						ctx.report{
							key = "op-opset-unrecorded:" .. a.id, severity = "info",
							message = _("{what}: opset support not recorded for {ops}: ferry holds the opsets of their vendor operator pages only for some operators, so opset {v} is not checked for these.",
								{ what = what, ops = table.concat(unrecorded, ", "), v = v }),
							suggestion = _("Read the \"支持的ONNX版本\" line of each operator's page in the vendor's ONNX operator list, or convert once with atc and read its log (`ferry ingest atc-log`)."),
						}
					end
				end
				for _i, f in ipairs(m.external) do
					if f.problem then
						ctx.report{
							key = "external:" .. a.id .. ":" .. f.location, severity = "error",
							message = _("{what} keeps {n} tensors ({size}) in external data, but {problem}.", { what = what, n = f.tensors,
								size = size_text(f.bytes), problem = _(f.problem) }),
							suggestion = _("Keep the data files next to the .onnx file, as onnx.save_model(..., save_as_external_data=True) wrote them, before ingesting and converting: ATC reads them from the model's directory."),
						}
					end
				end
				local parts = {}
				for i = 1, math.min(TOP, #m.ops) do
					parts[#parts + 1] = string.format("%s %d", m.ops[i].op_type, m.ops[i].count)
				end
				local ins = {}
				for _i, vi in ipairs(m.inputs) do ins[#ins + 1] = atc_cmd.input_text(ctx, vi) end
				ctx.metric("onnx_nodes", m.nodes_total)
				local file = m.file or ((a.label and a.label ~= "") and (a.label .. ".onnx")) or "model.onnx"
				local cmd, notes, form = atc_cmd.command(ctx, { model = file, soc = soc, inputs = m.inputs })
				local extra = {}
				if m.subgraphs > 0 then extra[#extra + 1] = _("{n} subgraphs (Loop/If/Scan)", { n = m.subgraphs }) end
				if #m.external > 0 then
					local args = { n = m.initializers.external, files = #m.external }
					extra[#extra + 1] = m.initializers.external == 1 and _("{n} tensor in {files} external data file(s)", args)
						or _("{n} tensors in {files} external data file(s)", args)
				end
				local inv = { what = what, opset = v and tostring(v) or _("not declared"), nodes = m.nodes_total,
					ntypes = #m.ops, types = table.concat(parts, ", ") .. (#m.ops > TOP and ", …" or ""),
					inputs = #ins > 0 and words.join(ins) or _("none"),
					inits = m.initializers.count == 1 and _("{n} initializer", { n = 1 })
						or _("{n} initializers", { n = m.initializers.count }),
					size = size_text(m.initializers.bytes), extra = words.join(extra) }
				ctx.report{
					key = "inventory:" .. a.id,
					message = #extra > 0
						and _("{what}: opset {opset}, {nodes} nodes, {ntypes} operator types ({types}); inputs {inputs}; {inits}, {size}; {extra}.", inv)
						or _("{what}: opset {opset}, {nodes} nodes, {ntypes} operator types ({types}); inputs {inputs}; {inits}, {size}.", inv),
					suggestion = #notes > 0 and _("Convert it with: {cmd} — {notes}.", { cmd = cmd, notes = words.join(notes, ";") })
						or _("Convert it with: {cmd}.", { cmd = cmd }),
					data = { command = cmd, form = form },
				}
			end
		end
	end,
}
