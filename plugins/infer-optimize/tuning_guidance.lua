-- infer-optimize.tuning_guidance: AOE, AMCT and msModelSlim when the target is inference.
--
-- Facts: reference tune-and-inference-formats §5.1 (AOE: subgraph tuning --job_type=1 first,
-- then operator tuning --job_type=2; needs 20 GB free disk, 32 GB RAM, profiling off),
-- §5.2 (AMCT post-training INT8 quantization of ONNX models), §5.3 (msModelSlim W8A8 for
-- large language models).

local inf = require("inference")
local words = require("words")

return {
	id = "infer-optimize.tuning_guidance",
	phase = "infer-optimize",
	title = _("Tuning and quantization: AOE, AMCT, msModelSlim"),
	severity = "info",
	category = "performance",
	description = _("When the engagement is heading for inference (an inference SoC, an ONNX export or model, "
		.. "an ATC log, an inference benchmark, a transformers language model) and the plan does not set it out "
		.. "of scope (`design.migration_plan.inference no`), says how to tune the offline model "
		.. "with AOE and how to quantize: AMCT for ONNX models, msModelSlim W8A8 for language models."),
	run = function(ctx)
		local planned, _how, s = inf.planned(ctx)
		if not planned or #s.reasons == 0 then return end
		local why = words.join(s.reasons, ";")
		local soc = s.soc or "<SoC>"
		if s.onnx or s.inference_soc then
			ctx.report{
				key = "aoe",
				message = _("Tune the offline model with AOE before measuring it ({why}).", { why = why }),
				suggestion = _("Run subgraph tuning first, then operator tuning: `aoe --framework=5 --model=model.onnx --job_type=1` and `aoe --framework=5 --model=model.onnx --job_type=2` (other options as for atc, e.g. --soc_version={soc}); AOE needs about 20 GB free disk and 32 GB RAM, with profiling switched off, and prints \"Performance improved by xx%\" when it is done.", { soc = soc }),
			}
			ctx.report{
				key = "amct",
				message = _("INT8 post-training quantization with AMCT can speed up the ONNX model further ({why}).", { why = why }),
				suggestion = _("Calibrate with a few hundred real inputs: `amct_onnx calibration --model model.onnx --save_path out/model --input_shape \"input:1,3,224,224\" --data_dir ./calib_bin --data_types float32`, convert the *_deploy_model.onnx with atc, and check accuracy with the *_fake_quant_model.onnx first."),
			}
		end
		if s.llm then
			ctx.report{
				key = "w8a8",
				message = _("The language model can be quantized to W8A8 (8-bit weights and activations) with msModelSlim for MindIE or vllm-ascend ({why}).", { why = why }),
				suggestion = _("Run `msmodelslim quant --model_type <model> --model_path <hf weights> --save_path <out> --device npu --quant_type w8a8` and compare the quantized model's answers with the original on your evaluation set before serving it."),
			}
		end
	end,
}
