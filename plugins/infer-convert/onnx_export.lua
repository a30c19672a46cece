-- infer-convert.onnx_export: torch.onnx.export calls checked against what ATC accepts.
--
-- Facts (plugins/data/atc.json, reference tune-and-inference-formats §4): ATC reads
-- ai.onnx opsets 11-15 on every CANN release from 8.0 on (older 5.0/6.0: 11 only; 7.0
-- and 9.1: up to 18); dynamic dimensions need --input_shape with -1 plus
-- --dynamic_batch_size / --dynamic_dims at conversion. torch.onnx.export exports in eval
-- mode by default (training=TrainingMode.EVAL); with TrainingMode.PRESERVE and no
-- model.eval() before it, dropout and batch-norm may keep their training behaviour.

local py = require("py")
local export = require("export")

return {
	id = "infer-convert.onnx_export",
	phase = "infer-convert",
	title = _("ONNX export settings for the ATC converter"),
	severity = "warning",
	category = "export",
	description = _("Checks each torch.onnx.export call: an opset_version ATC accepts (11-15 is safe across "
		.. "CANN releases), the model in eval mode for the export (the default; TrainingMode.PRESERVE needs model.eval() first), dynamic axes (which ATC turns "
		.. "into fixed shapes or shape profiles) and constant folding."),
	triggers = { "onnx" },
	run = function(ctx)
		local atc = ctx.data("atc")
		local lo, hi = atc.safe_opset.min, atc.safe_opset.max
		for _i, path in ipairs(ctx.python_files()) do
			local calls = export.calls(ctx, path)
			if #calls > 0 then
				local evals = py.method_calls(ctx, path, "eval") or {}
				local fns = {}
				for _i, m in ipairs(ctx.query(path, "(function_definition) @fn") or {}) do fns[#fns + 1] = m.fn end
				-- the innermost function holding a node (nil at module level)
				local function scope(node)
					local best
					for _i, f in ipairs(fns) do
						if node.start_byte >= f.start_byte and node.end_byte <= f.end_byte
							and (not best or f.start_byte >= best.start_byte) then best = f end
					end
					return best and best.start_byte or -1
				end
				for _i, e in ipairs(calls) do
					local at = e.call
					if not e.opset_node then
						ctx.report{
							file = path, node = at, key = "opset",
							message = _("torch.onnx.export is called without opset_version, so the opset follows the installed PyTorch and may be newer than ATC reads."),
							suggestion = _("Pass opset_version={lo} (ATC accepts {lo}-{hi} on CANN 8.0; CANN 5.0/6.0 only 11).", { lo = lo, hi = hi }),
						}
					elseif e.opset and (e.opset < lo or e.opset > hi) then
						local v = { v = e.opset, lo = lo, hi = hi, arg = e.opset_node.text }
						ctx.report{
							file = path, node = e.opset_source or e.opset_node, key = "opset",
							message = e.opset_source
								and _("opset_version={arg} is {v} here, outside {lo}-{hi}, the opsets ATC reads on every CANN release from 8.0 on.", v)
								or _("opset_version={v} is outside {lo}-{hi}, the opsets ATC reads on every CANN release from 8.0 on.", v),
							suggestion = _("Export with opset_version between {lo} and {hi} (CANN 7.0 and 9.1 accept up to 18; check your CANN's ATC page before going higher).", { lo = lo, hi = hi }),
						}
					end
					local before = false
					for _i, ev in ipairs(evals) do
						if ev.call.start_byte < at.start_byte and ev.args.text:match("^%(%s*%)$")
							and scope(ev.call) == scope(at) then before = true end
					end
					-- torch.onnx.export's default, TrainingMode.EVAL, puts the model in eval mode
					-- for the export itself (PyTorch's torch.onnx.export reference, "training");
					-- only PRESERVE exports the mode the model happens to be in
					local preserve = e.training and e.training:match("TrainingMode%.PRESERVE$")
					if e.training and e.training:match("TrainingMode%.TRAINING$") then
						ctx.report{
							file = path, node = e.args.kw.training, key = "training",
							message = _("The model is exported with training=TrainingMode.TRAINING, so dropout and batch-norm keep their training behaviour in the offline model."),
							suggestion = _("Export with the default training mode (EVAL) and call model.eval() before the export."),
						}
					elseif preserve and not before then
						ctx.report{
							file = path, node = at, key = "eval",
							message = _("This export keeps the model's current mode (training=TrainingMode.PRESERVE) and no model.eval() comes before it in the same function: dropout and batch-norm may be exported in training mode."),
							suggestion = _("Call model.eval() before torch.onnx.export (and export under torch.no_grad())."),
						}
					end
					if e.dynamic_node then
						ctx.report{
							file = path, node = e.dynamic_node, key = "dynamic", severity = "info",
							message = _("dynamic_axes makes dimensions of the ONNX model dynamic; ATC compiles fixed shapes."),
							suggestion = _("At conversion give the shape with --input_shape, using -1 for the batch plus --dynamic_batch_size=\"1,2,4,8\" (or --dynamic_dims profiles for other dimensions); infer-convert.atc_command prints the command."),
						}
					end
					if e.folding == "False" then
						ctx.report{
							file = path, node = e.args.kw.do_constant_folding, key = "folding", severity = "info",
							message = _("do_constant_folding=False leaves constant subgraphs in the model for ATC to convert and run."),
							suggestion = _("Export with do_constant_folding=True (the default) unless you need the unfolded graph for debugging."),
						}
					end
				end
			end
		end
	end,
}
