-- infer-convert.atc_command: the atc command line for each ONNX export (plugins/lib/export.lua:
-- torch.onnx.export and the library functions that call it), for the target SoC.
--
-- atc --model=x.onnx --framework=5 --output=x --soc_version=<SoC> [--input_format=…]
-- [--input_shape="name:d1,d2,…;…"] [a dynamic-shape option] (reference
-- tune-and-inference-formats §4: framework 5 is ONNX; the output is given without .om;
-- the dynamic-shape rule is plugins/lib/atc.lua). The SoC comes from `ferry config target.soc`.
--
-- The inputs: those of the ingested ONNX model the export writes, when there is one (the
-- newest whose file name, or label, is the export's file name; for an export whose file
-- name is no literal, the only model ingested when the project has no other export): every
-- input by name, rank and type, token ids as well as images. Else the export's literal
-- dummy input and input_names. Else a placeholder that presumes no layout, with a note.

local export = require("export")
local words = require("words")

-- The last path component.
local function base(path) return path and path:match("[^/]*$") end

-- The ingested ONNX models that can be read, newest first: {artifact=, onnx=}.
local function ingested(ctx)
	local out = {}
	local list = ctx.artifacts("onnx") or {}
	for i = #list, 1, -1 do
		local m = ctx.onnx(list[i].id)
		if m then out[#out + 1] = { artifact = list[i], onnx = m } end
	end
	return out
end

-- The ingested model export e writes (see the header), or nil; exports is the number of
-- exports in the project.
local function model_of(models, e, exports)
	if not e.file then
		return (exports == 1 and #models == 1) and models[1] or nil
	end
	for _i, m in ipairs(models) do
		local label = m.artifact.label
		if base(m.onnx.file) == base(e.file) or (label and (label == base(e.file) or label .. ".onnx" == base(e.file))) then
			return m
		end
	end
	return nil
end

return {
	id = "infer-convert.atc_command",
	phase = "infer-convert",
	evidence = { "settings", "onnx" },
	title = _("ATC command lines for the exported ONNX models"),
	severity = "info",
	category = "convert",
	description = _("For each ONNX export in the project (torch.onnx.export, or a library function that calls it; not one in test code or to an in-memory buffer, which writes no model to deploy), the atc command that converts its output into an "
		.. "offline model (.om) for the target SoC (`ferry config target.soc`). The inputs are those of the model "
		.. "the export writes once it is ingested (`ferry ingest onnx FILE`: every input's name, shape and type, "
		.. "token ids as well as images), else the input shape is taken from the export call when the dummy "
		.. "input and input_names are literals."),
	triggers = { "onnx" },
	run = function(ctx)
		local soc = ctx.config("target.soc")
		if soc and not soc:match("^Ascend[%w_]+$") then soc = nil end
		-- an export to an in-memory buffer, or in test code, writes no model anyone deploys
		local calls = {}
		for _i, e in ipairs(export.project(ctx).exports) do
			if not e.buffer and not e.test then calls[#calls + 1] = e end
		end
		local models = #calls > 0 and ingested(ctx) or {}
		for _i, e in ipairs(calls) do
			local cmd, notes, file = export.atc(ctx, e, soc, model_of(models, e, #calls))
			local om = file and file:gsub("%.onnx$", "") or "model"
			ctx.report{
				file = e.path, node = e.call,
				message = _("Convert this export's model with: {cmd}", { cmd = cmd }),
				suggestion = #notes > 0
					and _("Run the command on a host with CANN installed (source set_env.sh first); ATC writes {om}.om. Then: {notes}.",
						{ om = om, notes = words.join(notes, ";") })
					or _("Run the command on a host with CANN installed (source set_env.sh first); ATC writes {om}.om.", { om = om }),
				data = { command = cmd },
			}
		end
	end,
}
