-- infer-convert.atc_command: the atc command line for each ONNX export, for the target SoC.
--
-- atc --model=x.onnx --framework=5 --output=x --soc_version=<SoC> [--input_format=…]
-- [--input_shape="name:n,c,h,w"] [a dynamic-shape option] (reference
-- tune-and-inference-formats §4: framework 5 is ONNX; the output is given without .om;
-- the dynamic-shape rule is plugins/lib/atc.lua). The SoC comes from `ferry config target.soc`.

local export = require("export")
local words = require("words")

return {
	id = "infer-convert.atc_command",
	phase = "infer-convert",
	evidence = { "settings", "onnx" },
	title = _("ATC command lines for the exported ONNX models"),
	severity = "info",
	category = "convert",
	description = _("For each torch.onnx.export in the project, the atc command that converts its output into an "
		.. "offline model (.om) for the target SoC (`ferry config target.soc`), with the input shape taken "
		.. "from the export call when the dummy input and input_names are literals."),
	triggers = { "onnx" },
	run = function(ctx)
		local soc = ctx.config("target.soc")
		if soc and not soc:match("^Ascend[%w_]+$") then soc = nil end
		for _i, path in ipairs(ctx.python_files()) do
			for _i, e in ipairs(export.calls(ctx, path)) do
				local cmd, notes = export.atc(ctx, e, soc)
				ctx.report{
					file = path, node = e.call,
					message = _("Convert this export's model with: {cmd}", { cmd = cmd }),
					suggestion = #notes > 0
						and _("Run the command on a host with CANN installed (source set_env.sh first); ATC writes {om}.om. Then: {notes}.",
							{ om = e.file and e.file:gsub("%.onnx$", "") or "model", notes = words.join(notes, ";") })
						or _("Run the command on a host with CANN installed (source set_env.sh first); ATC writes {om}.om.",
							{ om = e.file and e.file:gsub("%.onnx$", "") or "model" }),
					data = { command = cmd },
				}
			end
		end
	end,
}
