-- inference: is the engagement heading for inference, and with which kind of model?
--
--   local inf = require("inference")
--   local s = inf.signals(ctx)
--     s.reasons   list of short texts (empty: nothing points to inference)
--     s.onnx      an ONNX path exists (export in the code, onnx or atc-log artifacts)
--     s.llm       a transformers language model is loaded in the code
--     s.soc       the configured target SoC (or nil); s.inference_soc when it is an
--                 inference part (Ascend310*)
-- Substring scans only (cheap on large projects); the checks that report code sites parse.

local inf = {}

function inf.signals(ctx)
	local s = { reasons = {} }
	local function add(r) s.reasons[#s.reasons + 1] = r end
	s.soc = ctx.config("target.soc")
	if s.soc and s.soc:match("^Ascend310") then
		s.inference_soc = true
		add("the target SoC " .. s.soc .. " is an inference part")
	end
	if #(ctx.artifacts("onnx") or {}) > 0 then s.onnx = true add("an ONNX model is ingested") end
	if #(ctx.artifacts("atc-log") or {}) > 0 then s.onnx = true add("an ATC log is ingested") end
	for _i, a in ipairs(ctx.artifacts("bench") or {}) do
		local text = ctx.read_artifact(a.id)
		if text and text:find('"sweep"', 1, true) then add("a benchmark with a batch sweep is ingested") break end
	end
	for _i, path in ipairs(ctx.files("%.py$")) do
		local text = ctx.read(path)
		if text then
			if not s.onnx_code and (text:find("onnx.export", 1, true) or text:find("from torch.onnx import", 1, true)) then
				s.onnx_code = true
			end
			if not s.llm and text:find("from_pretrained", 1, true)
				and (text:find("ForCausalLM", 1, true) or text:find("ForConditionalGeneration", 1, true) or text:find("Seq2SeqLM", 1, true)) then
				s.llm = true
			end
		end
	end
	if s.onnx_code then s.onnx = true add("the code exports to ONNX") end
	if s.llm then add("the code loads a transformers language model") end
	return s
end

return inf
