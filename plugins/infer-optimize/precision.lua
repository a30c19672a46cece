-- infer-optimize.precision: overflow and output precision of the offline model.
--
-- Facts: reference tune-and-inference-formats §4 (ATC's default --precision_mode is
-- force_fp16 for inference; alternatives allow_mix_precision, must_keep_origin_dtype,
-- --keep_dtype/--modify_mixlist), ascend-toolchain §5.4 (INF_NAN_MODE_ENABLE: Atlas A2/A3
-- default to Inf/NaN mode; Atlas training and inference series only saturate), and
-- tune-and-inference-formats §1.5 (msprobe's pass criteria: cosine >= 0.99, max absolute
-- error <= 0.001). The overflow data the runtime writes with dump_debug on (acl.json, seed
-- 003 §3.7.2) is decoded by infer-optimize.overflow from its AI Core status registers.

local inf = require("inference")

local function overflow_mode(soc)
	if not soc then return nil end
	if soc:match("^Ascend910B") or soc:match("^Ascend910_93") then
		return _("Inf/NaN mode (the Atlas A2/A3 default): an overflow shows up as inf or NaN in the outputs")
	end
	if soc:match("^Ascend310") or soc:match("^Ascend910A?$") or soc:match("^Ascend910[A-Z]?$") then
		return _("saturation mode (the only mode of this SoC): an overflowing float16 value is clamped to ±65504 instead of "
			.. "becoming inf, so overflow shows up as wrong values rather than NaN")
	end
	return nil
end

return {
	id = "infer-optimize.precision",
	phase = "infer-optimize",
	evidence = { "dump" },
	title = _("Overflow and output precision of the offline model"),
	severity = "info",
	category = "precision",
	description = _("ATC compiles in float16 by default (precision_mode force_fp16), so an offline model can "
		.. "overflow where the PyTorch model did not. Says how overflow shows on the target SoC and how to "
		.. "compare the offline model's outputs with PyTorch's."),
	run = function(ctx)
		local planned, _how, s = inf.planned(ctx)
		if not planned or #s.reasons == 0 then return end
		local mode = overflow_mode(s.soc)
		if s.onnx or s.inference_soc then
			ctx.report{
				key = "overflow",
				message = mode and _("ATC converts in float16 by default (--precision_mode=force_fp16); on {soc} overflow uses {mode}.", { soc = s.soc, mode = mode })
					or _("ATC converts in float16 by default (--precision_mode=force_fp16)."),
				suggestion = _("If outputs contain inf/NaN or drift from PyTorch's, find the overflowing operators: give acl.init a configuration with {config}, run the model, convert each OpDebug file with `msaccucmp.py convert -d FILE -out DIR` and `ferry ingest overflow` the JSON (infer-optimize.overflow decodes it). Then convert again with --precision_mode=allow_mix_precision (or must_keep_origin_dtype to keep float32), or keep only those operators in float32 with --keep_dtype; in PyTorch, msprobe's overflow_check task finds the operator that overflows.",
					{ config = (ctx.data("aicore_status").acl_json.text:gsub("%s+", " "):gsub("^ ", ""):gsub(" $", "")) }),
			}
		end
		local dumps = #(ctx.artifacts("dump") or {})
		ctx.report{
			key = "outputs",
			message = dumps >= 2 and _("Compare the offline model's outputs with the PyTorch model's on the same inputs before sign-off ({n} dumps are ingested).", { n = dumps })
				or _("Compare the offline model's outputs with the PyTorch model's on the same inputs before sign-off."),
			suggestion = _("Save both outputs as .npy for a few real inputs, ingest them with `ferry ingest dump FILE --label gpu|npu` and run `ferry compare dump gpu npu`; treat cosine similarity below 0.99 with a max absolute error above 0.001 as a mismatch (msprobe's criteria)."),
		}
	end,
}
