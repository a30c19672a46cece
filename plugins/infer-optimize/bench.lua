-- infer-optimize.bench: inference benchmarks ingested as ferry-bench/1 documents.
--
-- A document may carry "sweep": [{"batch":, "latency_ms":, "throughput":}, …] (README,
-- "GPU baseline"). Per sweep: the batch with the best throughput and the smallest batch
-- that reaches KNEE of it (beyond it latency grows for little gain: ferry's rule of thumb).
-- With a GPU baseline and an NPU benchmark that both carry metrics.throughput, the NPU
-- figure is set against `ferry config throughput.target_pct`.

local ep = require("envprobe")
local plan = require("plan")

local KNEE = 0.9

local function side(a, doc)
	local t = ((a.label or "") .. " " .. (doc.label or "") .. " " .. (doc.hardware or "")):lower()
	if t:find("npu", 1, true) or t:find("ascend", 1, true) or t:find("atlas", 1, true) then return "npu" end
	return nil
end

local function fmt(x) return string.format("%g", math.floor(x * 100 + 0.5) / 100) end

return {
	id = "infer-optimize.bench",
	phase = "infer-optimize",
	title = "Inference benchmarks: batch-size sweep and throughput target",
	severity = "info",
	category = "performance",
	description = "Reads the benchmarks ingested with `ferry ingest bench FILE --label L`: for a batch-size "
		.. "sweep, the batch with the best throughput and the knee after which larger batches add latency "
		.. "for little throughput; and the NPU throughput against the GPU baseline and the target "
		.. "(`ferry config throughput.target_pct`).",
	run = function(ctx)
		local npu
		for _, a in ipairs(ctx.artifacts("bench") or {}) do
			local doc, problems = plan.bench_doc(ctx, a)
			if doc then
				-- fields of the wrong type are dropped and named; the sweep's entries are checked below
				for _, problem in ipairs(problems) do
					ctx.report{
						key = "bench-shape:" .. tostring(a.id) .. ":" .. problem, severity = "warning",
						message = "bench artifact " .. tostring(a.id) .. ": field " .. problem .. "; this check ignores the field.",
						suggestion = "Write the benchmark as {\"label\": \"npu\", \"hardware\": \"...\", \"metrics\": {\"throughput\": 1500}, \"sweep\": [...]} and ingest it again.",
					}
				end
				local what = string.format("benchmark '%s' (artifact %s%s)", a.label or doc.label or "?", tostring(a.id),
					type(doc.hardware) == "string" and (", " .. doc.hardware) or "")
				if side(a, doc) == "npu" and type(doc.metrics) == "table" and type(doc.metrics.throughput) == "number"
					and (not npu or tonumber(a.id) > tonumber(npu.a.id)) then
					npu = { a = a, doc = doc }
				end
				if doc.sweep ~= nil then
					local pts, bad = {}, 0
					if type(doc.sweep) == "table" then
						for _, p in ipairs(doc.sweep) do
							if type(p) == "table" and type(p.batch) == "number" and p.batch > 0 and type(p.throughput) == "number" then
								pts[#pts + 1] = p
							else
								bad = bad + 1
							end
						end
					end
					table.sort(pts, function(x, y) return x.batch < y.batch end)
					if #pts == 0 or bad > 0 then
						ctx.report{
							key = "sweep-bad:" .. a.id, severity = "warning",
							message = string.format("%s: %d sweep entr%s a positive \"batch\" or a numeric \"throughput\".", what,
								math.max(bad, 1), bad <= 1 and "y lacks" or "ies lack"),
							suggestion = "Write each sweep entry as {\"batch\": 8, \"latency_ms\": 12.5, \"throughput\": 640} and ingest the file again.",
						}
					end
					if #pts > 0 then
						local best = pts[1]
						for _, p in ipairs(pts) do if p.throughput > best.throughput then best = p end end
						local knee = best
						for _, p in ipairs(pts) do
							if p.throughput >= KNEE * best.throughput then knee = p break end
						end
						local function lat(p) return type(p.latency_ms) == "number" and (", " .. fmt(p.latency_ms) .. " ms latency") or "" end
						local msg = string.format("%s: best throughput %s at batch %d%s", what, fmt(best.throughput), best.batch, lat(best))
						if knee ~= best then
							msg = msg .. string.format("; batch %d already reaches %s (%d %% of it)%s", knee.batch, fmt(knee.throughput),
								math.floor(knee.throughput / best.throughput * 100), lat(knee))
						end
						ctx.metric("bench_best_throughput", best.throughput)
						ctx.report{
							key = "sweep:" .. a.id,
							message = msg .. ".",
							suggestion = string.format("Serve with the largest batch whose latency fits your budget; beyond batch %d larger batches "
								.. "mostly add latency. With ATC, convert that batch size (or a --dynamic_batch_size list around it).", knee.batch),
						}
					end
				end
			end
		end
		local base = plan.baseline(ctx)
		local pct = tonumber(ctx.config("throughput.target_pct") or "")
		if npu and base and base.artifact.id ~= npu.a.id and type(base.metrics.throughput) == "number" and base.metrics.throughput > 0 then
			local got = npu.doc.metrics.throughput / base.metrics.throughput * 100
			local msg = string.format("The NPU benchmark (artifact %s) reaches %s, %.0f %% of the GPU baseline's %s",
				tostring(npu.a.id), fmt(npu.doc.metrics.throughput), got, fmt(base.metrics.throughput))
			if pct and got < pct then
				ctx.report{
					key = "target", severity = "warning",
					message = msg .. string.format(", below the target of %g %%.", pct),
					suggestion = "Tune before sign-off: AOE subgraph then operator tuning on the model, a larger batch (see the sweep), "
						.. "and W8A8 quantization where accuracy allows (infer-optimize.tuning_guidance).",
				}
			else
				ctx.report{
					key = "target",
					message = msg .. (pct and string.format(", meeting the target of %g %%.", pct) or "."),
					suggestion = pct and "Record the result in the report and sign the phase off once output precision is checked."
						or "Set the target with `ferry config throughput.target_pct N` so ferry can judge it.",
				}
			end
		end
	end,
}
