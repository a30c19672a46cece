-- infer-optimize.bench: inference benchmarks ingested as ferry-bench/1 documents.
--
-- A document may carry "sweep": [{"batch":, "latency_ms":, "throughput":}, …] (README,
-- "GPU baseline"). Per sweep: the batch with the best throughput and the smallest batch
-- that reaches KNEE of it (beyond it latency grows for little gain: ferry's rule of thumb).
-- The NPU throughput against the target is judged by infer-optimize.acceptance.

local plan = require("plan")
local shape = require("shape")

local KNEE = 0.9

local function fmt(x) return string.format("%g", math.floor(x * 100 + 0.5) / 100) end

return {
	id = "infer-optimize.bench",
	phase = "infer-optimize",
	evidence = { "bench" },
	title = _("Inference benchmarks: batch-size sweep"),
	severity = "info",
	category = "performance",
	description = _("Reads the benchmarks ingested with `ferry ingest bench FILE --label L`: for a batch-size "
		.. "sweep, the batch with the best throughput and the knee after which larger batches add latency "
		.. "for little throughput (the throughput target is judged by infer-optimize.acceptance)."),
	run = function(ctx)
		for _i, a in ipairs(ctx.artifacts("bench") or {}) do
			local doc = plan.read_bench(ctx, a)
			if doc then
				local hardware = type(doc.hardware) == "string" and doc.hardware or nil
				local named = { label = a.label or doc.label or "?", id = tostring(a.id), hardware = hardware }
				local what = hardware and _("benchmark '{label}' (artifact {id}, {hardware})", named)
					or _("benchmark '{label}' (artifact {id})", named)
				if #doc.bad_fields > 0 then
					ctx.report{
						key = "shape:" .. a.id, severity = "warning",
						message = _("{what} has {problems}; the benchmark checks ignore them.", { what = what, problems = shape.listing(doc.bad_fields) }),
						suggestion = _("Write the document as ferry-bench/1 describes it (README, \"GPU baseline\"): text for label, hardware and precision, finite numbers for metrics and sweep entries; then ingest it again."),
					}
				end
				if doc.sweep ~= nil then
					local pts, bad = {}, 0
					-- entries whose values had the wrong type are named in the shape warning already
					local typed = {}
					for _i, b in ipairs(doc.bad_fields) do
						local i = b:match("^sweep%[(%d+)%]")
						if i then typed[tonumber(i)] = true end
					end
					if type(doc.sweep) == "table" then
						for i, p in ipairs(doc.sweep) do
							if type(p) == "table" and type(p.batch) == "number" and p.batch > 0 and type(p.throughput) == "number" then
								pts[#pts + 1] = p
							elseif not typed[i] then
								bad = bad + 1
							end
						end
					end
					table.sort(pts, function(x, y) return x.batch < y.batch end)
					if bad > 0 or (#pts == 0 and not next(typed)) then
						ctx.report{
							key = "sweep-bad:" .. a.id, severity = "warning",
							message = string.format("%s: %d sweep entr%s a positive \"batch\" or a numeric \"throughput\".", what,
								math.max(bad, 1), bad <= 1 and "y lacks" or "ies lack"),
							suggestion = _("Write each sweep entry as {{\"batch\": 8, \"latency_ms\": 12.5, \"throughput\": 640}} and ingest the file again."),
						}
					end
					if #pts > 0 then
						local best = pts[1]
						for _i, p in ipairs(pts) do if p.throughput > best.throughput then best = p end end
						local knee = best
						for _i, p in ipairs(pts) do
							if p.throughput >= KNEE * best.throughput then knee = p break end
						end
						local function lat(p)
							return type(p.latency_ms) == "number" and _(", {ms} ms latency", { ms = fmt(p.latency_ms) }) or ""
						end
						local msg
						if knee ~= best then
							msg = _("{what}: best throughput {best} at batch {batch}{latency}; batch {knee} already reaches {knee_tp} ({pct} % of it){knee_latency}.",
								{ what = what, best = fmt(best.throughput), batch = best.batch, latency = lat(best), knee = knee.batch,
								  knee_tp = fmt(knee.throughput), pct = math.floor(knee.throughput / best.throughput * 100),
								  knee_latency = lat(knee) })
						else
							msg = _("{what}: best throughput {best} at batch {batch}{latency}.",
								{ what = what, best = fmt(best.throughput), batch = best.batch, latency = lat(best) })
						end
						ctx.metric("bench_best_throughput", best.throughput)
						ctx.report{
							key = "sweep:" .. a.id,
							message = msg,
							suggestion = _("Serve with the largest batch whose latency fits your budget; beyond batch {batch} larger batches mostly add latency. With ATC, convert that batch size (or a --dynamic_batch_size list around it).",
								{ batch = knee.batch }),
						}
					end
				end
			end
		end
	end,
}
