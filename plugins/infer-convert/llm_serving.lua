-- infer-convert.llm_serving: large language models are served, not converted with ATC.
--
-- A transformers language model (AutoModelForCausalLM, *ForCausalLM, *ForConditionalGeneration,
-- AutoModelForSeq2SeqLM) loaded with from_pretrained: on Ascend it is served by MindIE or
-- vllm-ascend and quantized with msModelSlim (reference tune-and-inference-formats §5.3-5.4),
-- so the report names the checkpoint and its dtype (transformers loads float32 unless
-- torch_dtype says otherwise), whether MindIE LLM ships its model family ready to serve,
-- and what MindIE LLM offers and needs (plugins/data/mindie.json, from seeds 003 §3.6.2
-- and §3.3.3): float16/bfloat16 only, tensor parallelism only, its quantization choices,
-- and how its service is configured and started.

local py = require("py")
local train = require("train")
local words = require("words")

local GRANULARITY = {
	["per channel"] = N_("per channel"),
	["per token"] = N_("per token"),
	["per group"] = N_("per group"),
}

-- The MindIE LLM preset family a checkpoint or class name belongs to (nil: none).
local function family(mindie, ...)
	for _i, name in ipairs({ ... }) do
		local l = name:lower()
		for _j, m in ipairs(mindie.models) do
			for _k, sub in ipairs(m.match) do
				if l:find(sub, 1, true) then return m.name end
			end
		end
	end
	return nil
end

-- A vision-language model by its class or checkpoint name (Qwen2_5_VLForConditionalGeneration,
-- LlavaForConditionalGeneration, Salesforce/blip2-...): MindIE LLM's preset list names
-- language models, so its family's name there says nothing about it.
local function vision_language(...)
	for _i, name in ipairs({ ... }) do
		local l = name:lower()
		if name:find("VL") or l:find("vision", 1, true) or l:find("llava", 1, true) or l:find("blip", 1, true)
			or l:find("%-vl") or l:find("_vl") then
			return true
		end
	end
	return false
end

-- "W8A8 (per channel, per token), W8A16 (...)" in the reader's language.
local function quant_choices(mindie)
	local list = {}
	for _i, q in ipairs(mindie.quantization) do
		local g = {}
		for _j, x in ipairs(q.granularity) do g[#g + 1] = GRANULARITY[x] and _(GRANULARITY[x]) or x end
		list[#list + 1] = _("{name} ({granularity})", { name = q.name, granularity = words.join(g) })
	end
	return words.join(list)
end

local function service(mindie, name)
	for _i, e in ipairs(mindie.service) do if e.name == name then return e.text end end
end

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
		local mindie = ctx.data("mindie")
		local families = {}
		for _i, m in ipairs(mindie.models) do families[#families + 1] = m.name end
		local quant = quant_choices(mindie)
		local function serve(q) return _("Serve it with MindIE LLM or vllm-ascend rather than exporting to ONNX for ATC. MindIE LLM runs "
			.. "float16 or bfloat16 only (torch_dtype in the model's config.json) and parallelises by tensor parallelism "
			.. "only (no data, pipeline or expert parallelism: an instance's worldSize is its TP degree); its quantization "
			.. "choices are {quant}. For W8A8 run `msmodelslim quant --model_type {q} --model_path <weights> --save_path "
			.. "<out> --device npu --quant_type w8a8`. To serve, set modelName, modelWeightPath, worldSize and npuDeviceIds "
			.. "in `{config}`, start `{start}` and wait for \"{ready}\" in output.log.",
			{ quant = quant, q = q, config = service(mindie, "config"), start = service(mindie, "start"),
			  ready = service(mindie, "ready") }) end
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
					local q = ckpt and ckpt:match("([^/]+)$") or "<model>"
					local vl = vision_language(ckpt or "", last)
					local fam = not vl and family(mindie, ckpt or "", last:match("^Auto") and "" or last)
					local message
					if vl then
						message = _("`{class}` loads the vision-language model {model} in {dtype}; the models MindIE LLM ships ready to serve are language models ({families}).",
							{ class = last, model = model, dtype = dtype, families = table.concat(families, ", ") })
					elseif fam then
						message = _("`{class}` loads the language model {model} in {dtype}; MindIE LLM ships its family ({family}) ready to serve.",
							{ class = last, model = model, dtype = dtype, family = fam })
					elseif ckpt or not last:match("^Auto") then
						message = _("`{class}` loads the language model {model} in {dtype}; its family is not among the models MindIE LLM ships ready to serve ({families}).",
							{ class = last, model = model, dtype = dtype, families = table.concat(families, ", ") })
					else
						message = _("`{class}` loads the language model {model} in {dtype}.", { class = last, model = model, dtype = dtype })
					end
					ctx.report{
						file = path, node = c.call,
						message = message,
						suggestion = fam and serve(q)
							or _("Port it to MindIE LLM as a model of your own, or serve it with vllm-ascend. {serve}", { serve = serve(q) }),
					}
				end
			end
		end
	end,
}
