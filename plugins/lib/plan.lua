-- plan: the design phase's shared reasoning (plugins/design/).
--   local plan = require("plan")
--   plan.criteria(ctx)          the acceptance criteria: list of {key=, label=, what=, value=, number=, text=,
--                               problem=, example=} (label, what, text and problem are _() results)
--   plan.dump_thresholds(ctx)   the thresholds `ferry compare dump` judges by: {rule="allclose", atol=, rtol=,
--                               text=} from tolerance.dump_atol/dump_rtol (the one unset 0), {rule="msprobe",
--                               text=} when neither is set, or {problem=, key=} for a malformed one
--   plan.soc(ctx, name)         the soc_memory.json entry for a SoC name (nil when unknown)
--   plan.inference_only(ctx, name)  the soc_memory.json inference_only entry a SoC name falls under, or nil
--   plan.training_site(ctx)     the first loss.backward() call of the project: {path=, line=} or nil
--   plan.parallel(ctx)          parallel-strategy advice from model size, cards and SoC (see below)
--   plan.read_bench(ctx, a)     a bench artifact decoded, wrong-typed values dropped (nil: not an object)
--   plan.baseline(ctx, workload) the GPU baseline: decoded bench document, its artifact, missing
--                               fields (the host's choice, ctx.bench_choice, which the report makes too)
--   plan.npu_bench(ctx, metric, workload) the newest NPU benchmark with metrics (with metric, the
--                               newest that measured it): {doc=, artifact=} or nil
--                               workload: "training" or "inference" leaves out the other's
--                               benchmarks; nil chooses among all
--   plan.strategy(ctx)          the chosen strategy and its description (nil when not chosen)
--   plan.bench_criteria_set(ctx) the keys of the benchmark criteria that are set
--   plan.bench_phases(ctx)      which phases hold the benchmark criteria (tolerance.accuracy,
--                               throughput.target_pct): {tune=, infer=, trains=, how=} (see below)
--   plan.hold_bench_criteria(ctx, held, advice)  an acceptance check's benchmark criteria: judged
--                               (plan.bench_acceptance) when its phase holds them (held), and the
--                               metric bench_criteria recorded either way

local ep = require("envprobe")
local inf = require("inference")
local shape = require("shape")
local train = require("train")
local words = require("words")

local plan = {}

-- ---- acceptance criteria ---------------------------------------------------------

-- %g of a number, as text for a message argument
local function g(v) return string.format("%g", v) end

local CRITERIA = {
	{ key = "tolerance.loss", example = "0.01", percent = true,
	  label = function() return _("loss tolerance") end,
	  what = function() return _("accepted relative difference of the NPU loss curve from the GPU baseline") end,
	  show = function(v) return _("the NPU loss stays within {pct} % of the GPU loss", { pct = g(v * 100) }) end,
	  valid = function(v) return v > 0 and v < 1, _("a fraction between 0 and 1 (0.01 = 1 %)") end,
	  -- unset, `ferry compare loss` still judges: by COMPARE_LOSS_DEFAULT_TOLERANCE
	  unset = function() return _("No loss tolerance is recorded ({what}): `ferry compare loss` judges by its default, 2 % mean relative error, which nobody has agreed with the client.",
		{ what = _("accepted relative difference of the NPU loss curve from the GPU baseline") }) end },
	{ key = "tolerance.accuracy", example = "0.005",
	  label = function() return _("accuracy tolerance") end,
	  what = function() return _("accepted absolute drop of the final accuracy against the GPU baseline") end,
	  show = function(v) return _("the final accuracy is at most {drop} below the GPU baseline", { drop = g(v) }) end,
	  valid = function(v) return v >= 0 and v < 1, _("an absolute drop between 0 and 1 (0.005 = half a point)") end },
	{ key = "throughput.target_pct", example = "80",
	  label = function() return _("throughput target") end,
	  what = function() return _("NPU throughput to reach, as a percentage of the GPU baseline") end,
	  show = function(v) return _("the NPU throughput reaches {pct} % of the GPU baseline", { pct = g(v) }) end,
	  valid = function(v) return v > 0 and v <= 1000, _("a percentage of the GPU baseline, e.g. 80") end },
}

function plan.criteria(ctx)
	local out = {}
	for _i, c in ipairs(CRITERIA) do
		local raw = ctx.config(c.key)
		local r = { key = c.key, label = c.label(), what = c.what(), example = c.example, value = raw }
		if not raw and c.unset then r.unset = c.unset() end
		if raw then
			-- a setting that takes a percentage (`ferry config tolerance.loss 2%`, as its
			-- help says) means that fraction
			local pct = c.percent and raw:match("^([%d.eE+-]+)%%$")
			local n = pct and tonumber(pct) and tonumber(pct) / 100 or tonumber(raw)
			local ok, expect = false, nil
			if n then ok, expect = c.valid(n) else local _ok; _ok, expect = c.valid(0) end
			if ok then
				r.number = n
				r.text = c.show(n)
			else
				r.problem = _("`{key}` is {value}, which is not {expected}",
					{ key = c.key, value = string.format("%q", raw), expected = expect })
			end
		end
		out[#out + 1] = r
	end
	return out
end

-- ---- dump thresholds ---------------------------------------------------------------

-- The rule of `ferry compare dump` (app/compare.c, dump_threshold_agreed): allclose by the
-- agreed thresholds, or msprobe's real-data rule when neither is set (its CompareConst:
-- COS_THRESHOLD 0.99, MAX_ABS_ERR_THRESHOLD 0.001, COS_MAX_THRESHOLD 0.9,
-- MAX_ABS_ERR_MAX_THRESHOLD 1; tune-and-inference-formats §1.5).
plan.DUMP_KEYS = { "tolerance.dump_atol", "tolerance.dump_rtol" }

function plan.dump_thresholds(ctx)
	local v = {}
	for i, key in ipairs(plan.DUMP_KEYS) do
		local raw = ctx.config(key)
		if raw and raw ~= "" then
			local n = tonumber(raw)
			if not n or not (n >= 0) or n == math.huge then -- as compare.c refuses it
				return { key = key, problem = _("`{key}` is {value}, which is not {expected}",
					{ key = key, value = string.format("%q", raw), expected = _("a threshold of at least 0, e.g. 1e-5") }) }
			end
			v[i] = n
		end
	end
	if not v[1] and not v[2] then
		return { rule = "msprobe", text = _("msprobe's rule: a tensor pair fails when its cosine similarity is under 0.99 and its largest absolute error over 0.001, when the cosine similarity is under 0.9, when the largest absolute error is over 1, or when a value is NaN or infinite") }
	end
	local t = { rule = "allclose", atol = v[1] or 0, rtol = v[2] or 0 }
	t.text = _("each element of the NPU's tensor within {atol} + {rtol} × |the GPU's element|, as torch.allclose",
		{ atol = g(t.atol), rtol = g(t.rtol) })
	return t
end

-- ---- SoC memory ------------------------------------------------------------------

function plan.soc(ctx, name)
	if not name or name == "" then return nil end
	local lname = name:lower()
	local best, best_len
	for _i, e in ipairs(ctx.data("soc_memory").entries or {}) do
		local names = { e.name }
		for _i, a in ipairs(e.aliases or {}) do names[#names + 1] = a end
		for _i, n in ipairs(names) do
			local ln = n:lower()
			if ln == lname or ("ascend" .. ln) == lname then return e end
			-- a family name such as Ascend910_93 covers Ascend910_9391
			if lname:sub(1, #ln) == ln and #ln >= 8 and (not best_len or #ln > best_len) then
				best, best_len = e, #ln
			end
		end
	end
	return best
end

function plan.inference_only(ctx, name)
	if not name or name == "" then return nil end
	local lname = name:lower()
	for _i, e in ipairs(ctx.data("soc_memory").inference_only or {}) do
		local ln = e.name:lower()
		if lname == ln or (e.prefix and lname:sub(1, #ln) == ln) then return e end
	end
	return nil
end

-- The project trains when it calls .backward() on something (the loss) in its code.
function plan.training_site(ctx)
	for _i, path in ipairs(ctx.files("%.py$")) do
		local text = ctx.read(path)
		if text and text:find(".backward(", 1, true) then
			local steps = train.steps(ctx, path)
			if steps[1] then return { path = path, line = steps[1].call.line } end
		end
	end
	return nil
end

function plan.known_socs(ctx)
	local names = {}
	for _i, e in ipairs(ctx.data("soc_memory").entries or {}) do names[#names + 1] = e.name end
	return table.concat(names, ", ")
end

-- ---- parallel strategy -------------------------------------------------------------

local BYTES_PER_PARAM = 16 -- Adam, mixed precision (weights 2 + gradients 2 + fp32 master 4 + moments 8) or
                           -- float32 (weights 4 + gradients 4 + moments 8): the same 16
local ZERO1_KEEP = 4       -- bytes per parameter ZeRO-1 keeps on every rank (weights and gradients)
local HEADROOM = 1.2       -- 20 % on top of the model states for activations, workspace, HCCL buffers
local GIB = 1024 * 1024 * 1024
local MAX_PER_NODE = 8     -- NPUs in one training server: tensor parallelism stays inside it
plan.MAX_PER_NODE = MAX_PER_NODE
local INFER_BYTES = 2     -- bf16/fp16 inference: the weights alone
local TIGHT = 0.85         -- above this share of a card's memory, recommend ZeRO-1 and recomputation

-- An amount of GB as a person reads it: whole from 10, one decimal from 1, else two
-- significant digits (a 0.09B model's 0.2 GB is never "0 GB").
function plan.gb_figure(x)
	return string.format(x >= 10 and "%.0f" or x >= 1 and "%.1f" or "%.2g", x)
end
local function gb(x) return plan.gb_figure(x) .. " GB" end

-- Whether the GPU baseline on record was measured in a 16-bit precision ("bf16", "fp16",
-- "amp", "mixed").
local function sixteen_bit_baseline(ctx)
	local b = plan.baseline(ctx)
	local p = b and type(b.doc.precision) == "string" and b.doc.precision:lower() or ""
	return p:find("16") ~= nil or p:find("amp") ~= nil or p:find("mix") ~= nil
end

-- Returns a table:
--   missing = list of {key=, why=, example=} settings the advice needs (advice absent then),
--   or: severity, message, suggestion, summary (one line), lines (Markdown bullet lines),
--   and tp, pp, dp, zero1, recompute, fits.
function plan.parallel(ctx)
	local params_b = ep.config_number(ctx, "model.params_b")
	local cards = ep.config_number(ctx, "target.cards")
	local nodes = ep.config_number(ctx, "target.nodes") or 1
	local soc_name = ctx.config("target.soc")
	local missing = {}
	if not params_b or params_b <= 0 then
		missing[#missing + 1] = { key = "model.params_b", why = _("the model size in billions of parameters"), example = "7" }
	end
	if not cards or cards < 1 then
		missing[#missing + 1] = { key = "target.cards", why = _("the number of NPU cards in the plan"), example = "8" }
	end
	if not soc_name or soc_name == "" then
		missing[#missing + 1] = { key = "target.soc", why = _("the NPU model"), example = "Ascend910B2" }
	end
	local inf_soc = plan.inference_only(ctx, soc_name)
	local site = inf_soc and plan.training_site(ctx)
	if site then
		local r = { fits = false, inference_target = true, soc = inf_soc, site = site }
		r.severity = "error"
		r.message = _("The project trains (loss.backward() in {file} line {line}) but the target SoC `{soc}` is an "
			.. "inference part ({product}): it is not meant for training, so no parallel plan for training is given.",
			{ file = site.path, line = site.line, soc = soc_name, product = inf_soc.product })
		r.suggestion = _("Plan the training on Atlas training hardware (an Ascend910 SoC such as Ascend910B2: `ferry config "
			.. "target.soc NAME`) and keep the inference card for deployment (the infer-convert phase); if only "
			.. "inference is migrated, leave the training code out of the engagement.")
		r.summary = _("no training plan: {soc} is an inference part", { soc = soc_name })
		r.lines = { "Verdict: " .. r.message }
		return r
	end
	if #missing > 0 then return { missing = missing } end
	local soc = plan.soc(ctx, soc_name)
	if not soc then
		return { unknown_soc = soc_name, known = plan.known_socs(ctx) }
	end
	cards = math.floor(cards)
	nodes = math.max(1, math.floor(nodes))
	if inf_soc then
		-- an inference card and a project that does not train: size the weights for serving
		local need = params_b * 1e9 * INFER_BYTES / GIB * HEADROOM
		local n = math.ceil(need / soc.memory_gb)
		local r = { fits = n <= cards, inference_target = true, soc = soc }
		local a = { params = string.format("%.3g", params_b), bytes = INFER_BYTES, need = gb(need), soc = soc.name,
			mem = soc.memory_gb, n = n, cards = cards, target = soc_name }
		local arith = soc.verified
			and _("{params}B parameters x {bytes} bytes (bf16/fp16 weights) = {need} with 20 % headroom; {soc} has {mem} GB per card", a)
			or _("{params}B parameters x {bytes} bytes (bf16/fp16 weights) = {need} with 20 % headroom; {soc} has {mem} GB per card (unverified figure)", a)
		a.arith = arith
		r.severity = r.fits and "info" or "error"
		r.summary = _("inference on {soc}: {n} card(s) of {cards} planned hold the weights", a)
		r.message = _("The target `{target}` is an inference part and the project does not train, so the plan is "
			.. "for inference: {arith}, so {n} card(s) hold the weights ({cards} planned).", a)
		r.suggestion = r.fits and _("Leave room for the KV cache or activations of the largest batch you serve; the "
			.. "infer-convert and infer-optimize phases size the batch.") or _("Plan at least {n} cards "
			.. "(`ferry config target.cards N`), or quantize the weights (W8A8) to halve them.", a)
		r.lines = { "Memory: " .. arith .. ".", "Verdict: " .. r.message }
		return r
	end
	local per_node = math.ceil(cards / nodes)
	local mem = soc.memory_gb
	local states = params_b * 1e9 * BYTES_PER_PARAM / GIB
	local need = states * HEADROOM
	local lines = {}
	local a = { params = string.format("%.3g", params_b), bytes = BYTES_PER_PARAM, states = gb(states), need = gb(need),
		soc = soc.name, mem = mem, cards = cards, nodes = nodes, per_node = per_node }
	-- the same 16 bytes either way; the words say which the project trains in
	local fp32 = not train.sixteen_bit(ctx) and not sixteen_bit_baseline(ctx)
	a.model = fp32 and _("Adam in float32, as the project trains: weights 4 + gradients 4, Adam moments 8")
		or _("mixed-precision Adam: fp16/bf16 weights 2 + gradients 2, fp32 master weights 4, Adam moments 8")
	local arith = soc.verified
		and _("{params}B parameters x {bytes} bytes ({model}) = {states} of model states, {need} with 20 % headroom "
			.. "for activations and buffers; {soc} has {mem} GB per card", a)
		or _("{params}B parameters x {bytes} bytes ({model}) = {states} of model states, {need} with 20 % headroom "
			.. "for activations and buffers; {soc} has {mem} GB per card (unverified figure)", a)
	a.arith = arith
	lines[#lines + 1] = "Memory: " .. arith .. "."
	local tp_max = math.min(MAX_PER_NODE, per_node)
	-- candidate layouts in the order of preference: the fewest model-parallel ways, tensor
	-- parallelism inside a node first, pipeline stages across nodes only once TP is at its cap
	local cands = {}
	local tp = 1
	while tp <= tp_max do
		cands[#cands + 1] = { tp = tp, pp = 1 }
		tp = tp * 2
	end
	local top = cands[#cands].tp
	for pp = 2, cards do
		if top * pp > cards then break end
		cands[#cands + 1] = { tp = top, pp = pp }
	end
	local chosen, zero1
	for _i, c in ipairs(cands) do
		c.dp = cards // (c.tp * c.pp)
		c.per_card = need / (c.tp * c.pp)
		if c.per_card <= mem then chosen = c break end
	end
	if not chosen then
		for _i, c in ipairs(cands) do
			if c.dp >= 2 then
				local keep = params_b * 1e9 * (ZERO1_KEEP + (BYTES_PER_PARAM - ZERO1_KEEP) / c.dp) / GIB * HEADROOM
				c.per_card = keep / (c.tp * c.pp)
				if c.per_card <= mem then chosen, zero1 = c, true break end
			end
		end
	end
	local r = { tp = chosen and chosen.tp, pp = chosen and chosen.pp, dp = chosen and chosen.dp, zero1 = zero1,
		fits = chosen ~= nil, lines = lines, soc = soc }
	local layout = _("{cards} card(s) on {nodes} node(s), {per_node} per node", a)
	a.layout = layout
	if per_node > MAX_PER_NODE then
		lines[#lines + 1] = string.format("The plan puts %d cards on a node; a training server holds %d NPUs, so "
			.. "check target.nodes.", per_node, MAX_PER_NODE)
	end
	if not chosen then
		local min_cards = math.ceil(need / mem)
		r.severity = "error"
		a.min_cards = min_cards
		r.message = _("The plan cannot hold the model: {arith}. Even split over all {layout} (and with ZeRO-1) a card would "
			.. "need more than its {mem} GB.", a)
		r.suggestion = _("Plan at least {min_cards} cards of this SoC (`ferry config target.cards N`, `ferry config "
			.. "target.nodes N`), or reduce the memory: ZeRO-3/FSDP, LoRA or another parameter-efficient method, "
			.. "activation recomputation.", a)
		r.summary = _("does not fit: at least {min_cards} cards of {soc} needed", a)
		lines[#lines + 1] = "Verdict: " .. r.message
		return r
	end
	local share = chosen.per_card / mem
	r.recompute = zero1 or share > TIGHT
	if not zero1 and r.recompute and chosen.dp >= 2 then
		zero1 = true
		r.zero1 = true
	end
	local parts = {}
	a.tp, a.pp, a.dp, a.tp_max, a.ways = chosen.tp, chosen.pp, chosen.dp, tp_max, chosen.tp * chosen.pp
	a.per_card = gb(need / (chosen.tp * chosen.pp))
	a.idle = cards - chosen.tp * chosen.pp * chosen.dp
	if chosen.tp == 1 and chosen.pp == 1 then
		r.summary = _("data parallelism (DP={dp}) over {layout}", a)
		parts[#parts + 1] = _("The model states fit on one card ({need} of {mem} GB), so plain data parallelism "
			.. "(DDP over HCCL, DP={dp}) across all planned cards is enough", a)
	else
		r.summary = _("TP={tp} x PP={pp} x DP={dp} over {layout}", a)
		parts[#parts + 1] = _("The model states ({need}) do not fit on one card ({mem} GB): split the model {ways} ways, "
			.. "{need} / {ways} = {per_card} per card", a)
		parts[#parts + 1] = _("tensor parallelism TP={tp} inside a node (it communicates in every layer, so it "
			.. "needs the node's fast links; at most {tp_max} per node)", a)
		if chosen.pp > 1 then
			parts[#parts + 1] = _("pipeline parallelism PP={pp} across nodes (it sends only activations between stages)", a)
		end
		parts[#parts + 1] = a.idle > 0
			and _("data parallelism DP={dp} with the remaining cards ({cards} = TP {tp} x PP {pp} x DP {dp}, {idle} card(s) left idle)", a)
			or _("data parallelism DP={dp} with the remaining cards ({cards} = TP {tp} x PP {pp} x DP {dp})", a)
	end
	if zero1 then
		local keep = params_b * 1e9 * (ZERO1_KEEP + (BYTES_PER_PARAM - ZERO1_KEEP) / chosen.dp) / GIB * HEADROOM
			/ (chosen.tp * chosen.pp)
		a.keep_bytes, a.split_bytes, a.keep = ZERO1_KEEP, BYTES_PER_PARAM - ZERO1_KEEP, gb(keep)
		parts[#parts + 1] = _("memory is tight, so shard the optimizer states over the {dp} data-parallel ranks "
			.. "with ZeRO-1 ({keep_bytes} bytes per parameter stay on every rank, the other {split_bytes} are divided by DP={dp}: {keep} per card)", a)
	end
	if r.recompute then
		parts[#parts + 1] = _("turn on activation recomputation (checkpointing) to keep activations inside the remaining headroom")
	end
	for _i, p in ipairs(parts) do lines[#lines + 1] = p:sub(1, 1):upper() .. p:sub(2) .. "." end
	r.severity = "info"
	r.message = _("Parallel plan: {summary}. {arith}.", { summary = r.summary, arith = arith })
	-- the steps joined with "; ", each a message of its own, so the whole reads in one language
	r.suggestion = _("{steps}.", { steps = words.join(parts, ";") })
	return r
end

-- ---- GPU baseline --------------------------------------------------------------------

-- A `ferry-bench/1` document (the notation of plugins/lib/shape.lua).
local T, N = shape.TEXT, shape.NUMBER
local BENCH = {
	schema = T, label = T, hardware = T, precision = T,
	metrics = { ["*"] = N },
	sweep = { { batch = N, latency_ms = N, throughput = N } },
}

-- The benchmark artifact a as the host reads it (ctx.bench, app/bench.c: a ferry-bench/1
-- document, or ais_bench / msit benchmark output read as one with metrics throughput,
-- latency_ms and batch), with values of the wrong type dropped (named in doc.bad_fields);
-- nil when it is neither. The report reads benchmarks the same way.
function plan.read_bench(ctx, a)
	local doc = ctx.bench(a.id)
	if type(doc) ~= "table" then return nil end
	doc.bad_fields = shape.conform(doc, BENCH)
	return doc
end

-- The host's choice among the benchmarks on record (ctx.bench_choice, the report's too),
-- asked once per run, metric and workload: {baseline=, npu=, measured=} artifact ids
-- (measured: the newest NPU benchmark measuring metric, when one is given).
local choices = setmetatable({}, { __mode = "k" })
local function choice(ctx, metric, workload)
	local per = choices[ctx] or {}
	choices[ctx] = per
	local key = (metric or "") .. "/" .. (workload or "")
	if not per[key] then per[key] = ctx.bench_choice(metric, workload) end
	return per[key]
end

-- The bench artifact whose id is id, with its document, or nil.
local function bench_by_id(ctx, id)
	if not id then return nil end
	for _i, a in ipairs(ctx.artifacts("bench") or {}) do
		if tonumber(a.id) == tonumber(id) then return { doc = plan.read_bench(ctx, a) or {}, artifact = a } end
	end
	return nil
end

-- Returns {doc=, artifact=, missing={field names}, metrics=} for the GPU baseline (of the
-- benchmarks naming no NPU in their label, document label or hardware, the newest naming a
-- GPU, else the newest), or nil.
function plan.baseline(ctx, workload)
	local r = bench_by_id(ctx, choice(ctx, nil, workload).baseline)
	if not r then return nil end
	local d, missing = r.doc, {}
	if d.schema ~= "ferry-bench/1" then missing[#missing + 1] = "schema" end
	for _i, k in ipairs({ "label", "hardware", "precision" }) do
		if type(d[k]) ~= "string" or d[k] == "" then missing[#missing + 1] = k end
	end
	local m = type(d.metrics) == "table" and d.metrics or {}
	for _i, k in ipairs({ "accuracy", "throughput" }) do
		if type(m[k]) ~= "number" then missing[#missing + 1] = "metrics." .. k end
	end
	r.metrics = m
	r.missing = missing
	return r
end

-- The newest NPU benchmark with metrics ({doc=, artifact=}), or with metric (a key of
-- its metrics: "accuracy", "latency_ms" ...) the newest that measured it; never the GPU
-- baseline; nil when there is none.
function plan.npu_bench(ctx, metric, workload)
	local c = choice(ctx, metric, workload)
	if metric then return bench_by_id(ctx, c.measured) end
	return bench_by_id(ctx, c.npu)
end

-- ---- strategy -------------------------------------------------------------------------

local STRATEGIES = {
	auto = "automatic migration: `from torch_npu.contrib import transfer_to_npu` at the top of each entry script "
		.. "maps CUDA calls to the NPU at run time",
	tool = "explicit rewrites: ferry's adapt checks rewrite each CUDA construct in the code, one reviewed checkpoint per rule",
	manual = "manual porting: the constructs with no automatic fix (custom kernels, GPU-only libraries) are ported by hand "
		.. "first, then the mechanical rewrites are applied",
}

function plan.strategy(ctx)
	local s = ctx.config("strategy")
	if not s or s == "" then return nil end
	return s, STRATEGIES[s] or ("`" .. s .. "` (not one of auto, tool, manual)")
end

-- The NPU's benchmarks held to the acceptance criteria against the GPU baseline: the
-- accuracy may drop at most tolerance.accuracy below the baseline's and the throughput
-- must reach throughput.target_pct of it, each metric from the newest NPU benchmark that
-- measured it (ais_bench gives the throughput, an accuracy run's ferry-bench/1 document the
-- accuracy); a criterion set with nothing to measure it is not met either. Reports through
-- ctx (errors of the calling check); advice = {workload=, accuracy=, throughput=}: the
-- workload the calling phase accepts ("training" or "inference": a benchmark of the other is
-- left out, so an ais_bench throughput never answers the training criterion) and its advice
-- for each shortfall (one _() text each). Keys carry the measuring benchmark's hash:
-- a waiver covers that measurement, not a later one.
local function fmt(x) return string.format("%g", math.floor(x * 10000 + 0.5) / 10000) end

-- the workloads a benchmark document names ("workload"), as the messages say them
local WORKLOADS = { training = N_("training"), inference = N_("inference") }

-- Whether two accuracies are written on different scales, one a fraction (at most 1) and
-- the other a percentage (above 1, at most 100): 0.761 against 70.0 is no drop of -69
-- points. The report judges by the same rule (app/report.c, bench_verdict).
function plan.accuracy_scales_differ(a, b)
	return (a <= 1) ~= (b <= 1) and math.max(a, b) <= 100
end

-- The benchmark criteria that are set (to a number), as a list of their keys.
function plan.bench_criteria_set(ctx)
	local set = {}
	for _i, key in ipairs({ "tolerance.accuracy", "throughput.target_pct" }) do
		if tonumber(ctx.config(key) or "") then set[#set + 1] = key end
	end
	return set
end

function plan.bench_acceptance(ctx, advice)
	local tol = tonumber(ctx.config("tolerance.accuracy") or "")
	local pct = tonumber(ctx.config("throughput.target_pct") or "")
	local w = advice.workload
	local base, npu = plan.baseline(ctx, w), plan.npu_bench(ctx, nil, w)
	if npu and base and base.artifact.id == npu.artifact.id then base = nil end
	-- a criterion that is set but has nothing to be checked against is not met: the
	-- sign-off would otherwise vouch for a measurement nobody made
	local set = plan.bench_criteria_set(ctx)
	-- an NPU benchmark of the other workload is on record: said, so that nobody ingests it again
	local other = not npu and w and plan.npu_bench(ctx, nil, nil) or nil
	if #set > 0 and (not base or not npu) then
		ctx.report{
			key = "unmeasured:" .. (npu and "baseline" or "npu"),
			message = npu and _("The acceptance criteria ({criteria}) are set, but no GPU baseline benchmark is on record to measure the NPU against.", { criteria = table.concat(set, ", ") })
				or other and _("The acceptance criteria ({criteria}) are set, but no NPU benchmark of {workload} is on record to check them: the newest NPU benchmark, artifact {id} ({label}), measures {other}, which these criteria do not take.",
					{ criteria = table.concat(set, ", "), workload = _(WORKLOADS[w] or w), id = tostring(other.artifact.id),
					  label = tostring(other.artifact.label or other.doc.label or "?"),
					  other = _(WORKLOADS[other.doc.workload] or tostring(other.doc.workload)) })
				or _("The acceptance criteria ({criteria}) are set, but no NPU benchmark is on record to check them.", { criteria = table.concat(set, ", ") }),
			suggestion = npu and _("Ingest the GPU run's benchmark (`ferry ingest bench FILE --label gpu`, ferry-bench/1 with accuracy and throughput); if the criteria do not apply to this engagement, waive this with the reason.")
				or _("Run the benchmark on the NPU and ingest it (`ferry ingest bench FILE --label npu`, ferry-bench/1 with accuracy and throughput); if the criteria do not apply to this engagement, waive this with the reason."),
		}
	end
	if not base or not npu then return end
	local g = base.metrics
	local function named(b)
		return _("The NPU benchmark (artifact {id}, sha256 {sha})", { id = tostring(b.artifact.id),
			sha = tostring(b.artifact.sha256 or "?"):sub(1, 12) })
	end
	-- each criterion needs its metric on both sides
	local by = {}
	for _i, c in ipairs({ { key = "tolerance.accuracy", on = tol, metric = "accuracy" },
		{ key = "throughput.target_pct", on = pct, metric = "throughput" } }) do
		local from = plan.npu_bench(ctx, c.metric, w)
		if from and from.artifact.id == base.artifact.id then from = nil end
		by[c.metric] = from
		-- a baseline throughput of 0 (or less) measures nothing to set the NPU's against
		local usable = type(g[c.metric]) == "number" and (c.metric ~= "throughput" or g[c.metric] > 0)
		local side = from and not usable and _("the GPU baseline (artifact {id})", { id = tostring(base.artifact.id) })
		if c.on and (side or not from) then
			ctx.report{
				key = "no-" .. c.metric .. ":" .. tostring(npu.artifact.sha256),
				message = side and _("{criterion} is set, but {side} has no {metric} to check it with.", { criterion = c.key, side = side, metric = c.metric })
					or _("{criterion} is set, but no NPU benchmark on record measured {metric} (the newest is artifact {id}, sha256 {sha}).",
						{ criterion = c.key, metric = c.metric, id = tostring(npu.artifact.id), sha = tostring(npu.artifact.sha256 or "?"):sub(1, 12) }),
				suggestion = _("Measure it and ingest the benchmark again with metrics.{metric} filled in.", { metric = c.metric }),
			}
		end
	end
	local acc, tp = by.accuracy, by.throughput
	if acc and type(g.accuracy) == "number" and plan.accuracy_scales_differ(g.accuracy, acc.doc.metrics.accuracy) then
		ctx.report{
			key = "accuracy-scale:" .. tostring(acc.artifact.sha256),
			message = _("{what} has accuracy {acc} and the GPU baseline {base}: one is a percentage and the other a fraction, so the drop cannot be judged.",
				{ what = named(acc), acc = fmt(acc.doc.metrics.accuracy), base = fmt(g.accuracy) }),
			suggestion = _("Write both benchmarks' metrics.accuracy on one scale (0.761 or 76.1 for 76.1 %, with tolerance.accuracy on the same scale) and ingest the one you changed again."),
		}
	elseif acc and type(g.accuracy) == "number" then
		local drop = g.accuracy - acc.doc.metrics.accuracy
		ctx.metric("accuracy_drop", drop)
		if tol and drop > tol + 1e-12 then
			ctx.report{
				key = "accuracy:" .. tostring(acc.artifact.sha256),
				message = _("{what} has accuracy {acc}, {drop} below the GPU baseline's {base}; the accepted drop (tolerance.accuracy) is {tol}.",
					{ what = named(acc), acc = fmt(acc.doc.metrics.accuracy), drop = fmt(drop), base = fmt(g.accuracy), tol = fmt(tol) }),
				suggestion = advice.accuracy,
			}
		end
	end
	if tp and type(g.throughput) == "number" and g.throughput > 0 then
		local got = tp.doc.metrics.throughput / g.throughput * 100
		ctx.metric("throughput_pct", got, "%")
		if pct and got < pct then
			ctx.report{
				key = "throughput:" .. tostring(tp.artifact.sha256),
				message = _("{what} reaches {tp}, {pct} % of the GPU baseline's {base}, below the throughput target of {target} %.",
					{ what = named(tp), tp = fmt(tp.doc.metrics.throughput), pct = string.format("%.0f", got), base = fmt(g.throughput), target = string.format("%g", pct) }),
				suggestion = advice.throughput,
			}
		end
	end
end

-- Which phases hold the benchmark criteria, each where the run it judges is tuned: the tune
-- phase in a project that trains (the trained model's accuracy, the training throughput) and
-- in one whose plan takes in no inference (its NPU run, tuned there, is then the only run
-- to accept); infer-optimize when the plan takes in inference (inf.planned: the setting
-- design.migration_plan.inference, or what points to inference). {tune=, infer=, trains=
-- (plan.training_site or nil), how= ("yes", "no" or "auto", inf.planned's)}
function plan.bench_phases(ctx)
	local site = plan.training_site(ctx)
	local planned, how = inf.planned(ctx)
	return { tune = site ~= nil or not planned, infer = planned, trains = site, how = how }
end

-- The benchmark criteria of an acceptance check whose phase holds them (held) judged by
-- plan.bench_acceptance(ctx, advice); a phase that does not hold them asks for nothing. The
-- metric bench_criteria is how many criteria are set and held by the phase (0: none), so
-- the report gives a verdict row, NOT PERFORMED while nothing measured them, to each phase
-- that holds one (app/report.c) and to no other.
function plan.hold_bench_criteria(ctx, held, advice)
	ctx.metric("bench_criteria", held and #plan.bench_criteria_set(ctx) or 0)
	if held then plan.bench_acceptance(ctx, advice) end
end

return plan
