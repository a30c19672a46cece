-- inference: is the engagement heading for inference, and with which kind of model?
--
--   local inf = require("inference")
--   local s = inf.signals(ctx)
--     s.reasons   list of short texts (empty: nothing points to inference)
--     s.onnx      an ONNX path exists (an export in the code, by torch.onnx.export or a library
--                 function that calls it, or onnx or atc-log artifacts); an export in test
--                 code (project.test_file) or to an in-memory buffer (io.BytesIO, a check
--                 that the model exports) deploys nothing and does not count
--     s.llm       a transformers language model is loaded in the code (not its tests)
--     s.soc       the configured target SoC (or nil); s.inference_soc when it is an
--                 inference part (Ascend310*)
--   local planned, how, s = inf.planned(ctx)
--     whether the engagement plans the inference migration, as the migration plan says:
--     `design.migration_plan.inference` yes or no decides (how = "yes" or "no"); auto, the
--     default, plans it when something points to inference (how = "auto"); s: inf.signals
-- Substring scans (cheap on large projects), except that a file naming a library's ONNX
-- exporter (plugins/data/onnx_exporters.json: ultralytics' torch2onnx, which current yolov5
-- exports with) is parsed to see that it calls it; the checks that report code sites parse.

local export = require("export")
local project = require("project")

local inf = {}

-- Whether one of the exports writes a model out (to a file, not an in-memory buffer).
local function deploys(calls)
	for _i, e in ipairs(calls) do
		if not e.buffer then return true end
	end
	return false
end

-- Whether a file naming torch.onnx.export has exports and all of them write to an
-- in-memory buffer (a check that the model exports, as in a test).
local function only_in_memory(ctx, path)
	local calls = export.calls(ctx, path)
	return #calls > 0 and not deploys(calls)
end

function inf.signals(ctx)
	local s = { reasons = {} }
	local function add(r) s.reasons[#s.reasons + 1] = r end
	s.soc = ctx.config("target.soc")
	if s.soc and s.soc:match("^Ascend310") then
		s.inference_soc = true
		add(_("the target SoC {soc} is an inference part", { soc = s.soc }))
	end
	if #(ctx.artifacts("onnx") or {}) > 0 then s.onnx = true add(_("an ONNX model is ingested")) end
	if #(ctx.artifacts("atc-log") or {}) > 0 then s.onnx = true add(_("an ATC log is ingested")) end
	-- a benchmark of inference, as the host reads its workload (app/bench.c: stated, or
	-- implied by a sweep; ais_bench output runs an offline model)
	for _i, a in ipairs(ctx.artifacts("bench") or {}) do
		local doc = ctx.bench(a.id)
		local sweep = type(doc) == "table" and type(doc.sweep) == "table"
		if type(doc) == "table" and (doc.workload or (sweep and "inference")) == "inference" then
			add(sweep and _("a benchmark with a batch sweep is ingested") or _("a benchmark of inference is ingested"))
			break
		end
	end
	-- the names of the library exporters, as a call of one spells it out
	local wrappers = {}
	for _i, x in ipairs(ctx.data("onnx_exporters").entries) do
		if x.library then wrappers[x.name:match("[^.]*$")] = true end
	end
	for _i, path in ipairs(ctx.files("%.py$")) do
		local text = ctx.read(path)
		if text then
			if not s.onnx_code and not project.test_file(path)
				and (text:find("onnx.export", 1, true) or text:find("from torch.onnx import", 1, true)) then
				s.onnx_code = not only_in_memory(ctx, path)
			end
			if not s.onnx_code and not project.test_file(path) then
				for name in pairs(wrappers) do
					if text:find(name, 1, true) and deploys(export.calls(ctx, path)) then
						s.onnx_code = true
						break
					end
				end
			end
			-- a test that loads a Hugging Face model to check the project's own (litgpt's
			-- converted weights) is no model the project serves
			if not s.llm and not project.test_file(path) and text:find("from_pretrained", 1, true)
				and (text:find("ForCausalLM", 1, true) or text:find("ForConditionalGeneration", 1, true) or text:find("Seq2SeqLM", 1, true)) then
				s.llm = true
			end
		end
	end
	if s.onnx_code then s.onnx = true add(_("the code exports to ONNX")) end
	if s.llm then add(_("the code loads a transformers language model")) end
	return s
end

function inf.planned(ctx)
	local want = ctx.config("design.migration_plan.inference") or "auto"
	local s = inf.signals(ctx)
	if want == "yes" or want == "no" then return want == "yes", want, s end
	return #s.reasons > 0, "auto", s
end

return inf
