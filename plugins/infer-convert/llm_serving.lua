-- infer-convert.llm_serving: large language models are served, not converted with ATC.
--
-- A transformers language model (AutoModelForCausalLM, *ForCausalLM, *ForConditionalGeneration,
-- AutoModelForSeq2SeqLM) loaded with from_pretrained: on Ascend it is served by MindIE or
-- vllm-ascend and quantized with msModelSlim (reference tune-and-inference-formats §5.3-5.4),
-- so the report names the checkpoint and its dtype (transformers loads float32 unless
-- torch_dtype says otherwise).

local py = require("py")
local train = require("train")

local function is_lm(name)
	return name == "AutoModelForCausalLM" or name == "AutoModelForSeq2SeqLM"
		or name:match("ForCausalLM$") ~= nil or name:match("ForConditionalGeneration$") ~= nil
end

return {
	id = "infer-convert.llm_serving",
	phase = "infer-convert",
	title = _("Large language models: serving path and dtype"),
	severity = "info",
	category = "serving",
	description = _("Finds transformers language models loaded with from_pretrained and says how they are "
		.. "served on Ascend (MindIE or vllm-ascend, not ONNX and ATC), which dtype they load in, and how "
		.. "to quantize them to W8A8 with msModelSlim."),
	triggers = { "from_pretrained" },
	run = function(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			local map = py.aliases(ctx, path) or {}
			local args_of
			for _i, c in ipairs(py.method_calls(ctx, path, "from_pretrained") or {}) do
				local cls = py.dotted(c.object.text)
				local full = cls and py.expand(map, cls)
				local last = full and full:match("([%w_]+)$")
				if full and full:match("^transformers%.") and is_lm(last) then
					args_of = args_of or train.all_call_args(ctx, path)
					local a = args_of(c.call)
					local ckpt = a.pos[1] and a.pos[1].type == "string" and py.string_value(a.pos[1].text) or nil
					local dt_node = a.kw.torch_dtype or a.kw.dtype
					local dt = dt_node and (train.dtype(dt_node.text, map) or (py.string_value(dt_node.text) == "auto" and "auto")) or nil
					local dtype
					if not dt_node then
						dtype = _("float32 (no torch_dtype: transformers loads float32, twice the memory of bf16)")
					elseif dt == "auto" then
						dtype = _("the checkpoint's own dtype (torch_dtype=\"auto\")")
					else
						dtype = dt or dt_node.text
					end
					local model = ckpt and ("`" .. ckpt .. "`") or _("from a checkpoint named at run time")
					local q = ckpt and ckpt:match("^[^/]*/?(.+)$") or "<model>"
					ctx.report{
						file = path, node = c.call,
						message = _("`{class}` loads the language model {model} in {dtype}.", { class = last, model = model, dtype = dtype }),
						suggestion = _("Serve it on Ascend with MindIE or vllm-ascend (check that its model family is on their supported list) rather than exporting to ONNX for ATC; load it in bfloat16 (torch_dtype=torch.bfloat16), and for W8A8 quantization run `msmodelslim quant --model_type {q} --model_path <weights> --save_path <out> --device npu --quant_type w8a8`.", { q = q }),
					}
				end
			end
		end
	end,
}
