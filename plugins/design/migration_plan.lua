-- design.migration_plan: docs/MIGRATION_PLAN.md, the plan document of the design phase.

local ep = require("envprobe")
local export = require("export")
local tvops = require("tvops")
local inf = require("inference")
local plan = require("plan")
local project = require("project")

local PATH = "docs/MIGRATION_PLAN.md"
local LISTED = 8 -- code sites listed per kind in the plan; the rest are counted

-- How code loads its training data, found by substring (cheap on large projects): the
-- plan lists the sites so the team can name the data set, its size and where it lives.
local DATA_LOADERS = {
	{ find = "load_dataset(", what = "Hugging Face datasets `load_dataset`" },
	{ find = "torchvision.datasets", what = "torchvision data sets" },
	{ find = "from torchvision import datasets", what = "torchvision data sets" },
	{ find = "ImageFolder(", what = "`ImageFolder` over a folder of images" },
	{ find = "WebDataset(", what = "WebDataset shards" },
	{ find = "np.memmap(", what = "memory-mapped token file (`np.memmap`)" },
	{ find = "(Dataset):", what = "data set class of the project" },
	{ find = "(torch.utils.data.Dataset):", what = "data set class of the project" },
	{ find = "(IterableDataset):", what = "streaming data set class of the project" },
}

local CHECKLIST = {
	{ "assess", "survey the project and judge feasibility", {
		"run `ferry check --phase assess` and read the readiness score, the effort estimate and the top risks",
		"record the GPU baseline (`ferry ingest bench FILE --label gpu`, and a loss log with `ferry ingest loss-log FILE --label gpu`)",
		"fix or waive (with a reason) every error, then `ferry signoff assess`",
	} },
	{ "design", "choose how to migrate and what done means", {
		"choose the strategy: `ferry config strategy auto|tool|manual`",
		"record the acceptance criteria: `tolerance.loss`, `tolerance.accuracy`, `throughput.target_pct`, and the dump thresholds `tolerance.dump_atol`, `tolerance.dump_rtol` unless msprobe's rule is accepted",
		"record the resource plan: `target.soc`, `target.cards`, `target.nodes`, `model.params_b`",
		"review this plan with the client, then `ferry signoff design`",
	} },
	{ "environment", "make sure the target machine can run it", {
		"run the probe on the NPU host (`ferry probe-script > probe.sh`, `sh probe.sh > probe.json`) and `ferry ingest env-probe probe.json`",
		"resolve the version and visibility findings of `ferry check --phase environment`",
		"apply the generated environment script (`ferry fix --plugin environment.setup_script --yes`)",
	} },
	{ "adapt", "change the code so it runs on NPU", {
		"apply the mechanical rewrites: `ferry fix --phase adapt --dry-run`, then `--yes` (one checkpoint per rule)",
		"port every row of the unsupported list (`ferry report --format md --section unsupported`) by hand",
		"run one training step on one NPU, then on all planned cards",
	} },
	{ "tune", "reach the accuracy and speed targets", {
		"ingest the NPU loss log and compare it with the GPU one (`ferry compare loss A B`)",
		"when the curves diverge, compare layer dumps (`ferry compare dump A B`) to find the first diverging layer",
		"profile, remove host-device syncs from the loop, use fused operators and optimizers",
	} },
	{ "infer-convert", "turn the trained model into an offline model", {
		"check the ONNX export and its operators against the converter",
		"run the generated `atc` command for the target SoC and fix what its log reports",
	} },
	{ "infer-optimize", "make inference fast and correct", {
		"ingest inference benchmarks over a batch-size sweep",
		"tune (AOE) and quantize (AMCT, W8A8) where the accuracy budget allows; compare outputs",
	} },
}

-- Code sites holding any of the plain strings of `kinds` ({find=, what=}): list of
-- {path=, line=, text=, what=} in file order, and the number found in all.
local function code_sites(ctx, kinds)
	local out, n = {}, 0
	for _i, path in ipairs(ctx.files("%.py$")) do
		local text = ctx.read(path)
		local hit
		for _j, k in ipairs(kinds) do
			if text and text:find(k.find, 1, true) then hit = true break end
		end
		if hit then
			for i, l in ipairs(ctx.lines(path) or {}) do
				for _j, k in ipairs(kinds) do
					if l:find(k.find, 1, true) and not l:match("^%s*#") then
						n = n + 1
						if #out < LISTED then
							out[#out + 1] = { path = path, line = i, text = (l:gsub("^%s+", ""):sub(1, 100)), what = k.what }
						end
						break
					end
				end
			end
		end
	end
	return out, n
end

local function add_sites(add, sites, n)
	for _i, c in ipairs(sites) do
		add(string.format("  - `%s:%d` (%s): `%s`", c.path, c.line, c.what, c.text:gsub("`", "'")))
	end
	if n > #sites then add(string.format("  - and %d more", n - #sites)) end
end

-- The project's ONNX exports (export.project), one line each: where, by what (torch's
-- exporter or a library's), in which function of the project and where that is called.
local function export_sites(ctx, add, all)
	for i, e in ipairs(all.exports) do
		if i > LISTED then
			add(string.format("  - and %d more", #all.exports - LISTED))
			break
		end
		local what = e.exporter.library
			and string.format("ONNX export through `%s` (%s)", e.func:match("[^.]*$"), e.exporter.library) or "ONNX export"
		local callers = all.callers[e] or {}
		if e.fn and #callers > 0 then
			local shown = {}
			for k = 1, math.min(#callers, 4) do shown[k] = string.format("`%s:%d`", callers[k].path, callers[k].node.line) end
			what = string.format("%s, in `%s`, called at %s%s", what, e.fn.name, table.concat(shown, ", "),
				#callers > 4 and string.format(" and %d more", #callers - 4) or "")
		elseif e.fn then
			what = string.format("%s, in `%s`", what, e.fn.name)
		end
		local line = ((ctx.lines(e.path) or {})[e.call.line] or e.call.text):gsub("^%s+", ""):sub(1, 100)
		add(string.format("  - `%s:%d` (%s): `%s`", e.path, e.call.line, what, line:gsub("`", "'")))
	end
end

-- The newest torch_npu release for a PyTorch version: the version matrix lists the newest
-- pairing first; a maintained one is preferred.
local function matrix_row(ctx, torch)
	local first
	for _i, r in ipairs(ctx.data("version_matrix").entries) do
		if r.torch == torch then
			if r.status == "active" then return r end
			first = first or r
		end
	end
	return first
end

local function row_text(r)
	local py = type(r.python) == "table" and #r.python > 0
		and (", Python " .. r.python[1] .. (#r.python > 1 and ("–" .. r.python[#r.python]) or "")) or ""
	return string.format("torch %s (CPU wheel) + torch_npu %s (branch `%s`), CANN %s%s; %s", r.torch, r.torch_npu,
		r.branch or "?", r.cann, py, r.status == "active" and "maintained" or "end of life")
end

-- The maintained PyTorch versions, newest first; with a requirement, those satisfying it.
local function maintained_torches(ctx, pin)
	local seen, list = {}, {}
	for _i, r in ipairs(ctx.data("version_matrix").entries) do
		if r.status == "active" and not seen[r.torch] and (not pin or ep.satisfies(r.torch, pin.op, pin.version)) then
			seen[r.torch] = true
			list[#list + 1] = r.torch
		end
	end
	table.sort(list, function(a, b) return ep.vcmp(a, b) > 0 end)
	return table.concat(list, ", ")
end

-- Training design (framework, source code, data, convergence, evaluation) and the target
-- software versions: the factors 003 §3.2.1 asks a training migration design to settle.
local function training_design(ctx, add)
	add("## Training design")
	add("")
	local pins = ep.torch_pins(ctx)
	local exact = pins[1] and (pins[1].op == "==" or pins[1].op == "===") and pins[1]
	if exact then
		add(string.format("- Framework: PyTorch %s (`%s`, %s line %d).", ep.torch_base(exact.version), exact.text,
			exact.file, exact.line))
	elseif pins[1] then
		add(string.format("- Framework: PyTorch, `%s` (%s line %d): a range, not one version; pin the version the GPU "
			.. "baseline ran with.", pins[1].text, pins[1].file, pins[1].line))
	else
		add("- Framework: PyTorch, no version pinned in requirements*.txt, setup.py, setup.cfg or pyproject.toml; "
			.. "record the version the GPU baseline ran with.")
	end
	local others = {}
	for _i, p in ipairs(pins) do
		if p ~= pins[1] then others[#others + 1] = string.format("`%s` in %s", p.text, p.file) end
	end
	if #others > 0 then
		add("  Other torch requirements: " .. table.concat(others, ", ", 1, math.min(#others, LISTED))
			.. (#others > LISTED and string.format(" and %d more", #others - LISTED) or "") .. ".")
	end
	local files, loc, entries, nentries = 0, 0, {}, 0
	-- the assessment's entry scripts (assess.inventory): the programs, not the modules with
	-- a self-test, the tool scripts or the build scripts
	local scripts = project.entry_scripts(ctx)
	for _i, path in ipairs(ctx.files("%.py$")) do
		files = files + 1
		loc = loc + (ctx.loc(path, "#") or 0)
		if scripts[path] then
			nentries = nentries + 1
			entries[#entries + 1] = path
		end
	end
	-- the project's own scripts first: the shallowest paths, then by name
	local function depth(p) return select(2, p:gsub("/", "")) end
	table.sort(entries, function(a, b)
		if depth(a) ~= depth(b) then return depth(a) < depth(b) end
		return a < b
	end)
	for i = #entries, LISTED + 1, -1 do entries[i] = nil end
	for i, e in ipairs(entries) do entries[i] = "`" .. e .. "`" end
	add(string.format("- Source code: %d Python files, %d lines of code%s%s.", files, loc,
		#entries > 0 and ("; entry scripts: " .. table.concat(entries, ", ")) or "",
		nentries > #entries and string.format(" and %d more", nentries - #entries) or ""))
	local dataset = ctx.config("dataset")
	add("- Data set: " .. (dataset and dataset ~= "" and dataset
		or "**to be described**: name, size, format and where the NPU host reads it from "
		.. "(`ferry config design.migration_plan.dataset \"ImageNet-1k, 150 GB JPEG, /data/imagenet\"`)."))
	local sites, n = code_sites(ctx, DATA_LOADERS)
	if n > 0 then
		add("  Where the code loads data:")
		add_sites(add, sites, n)
	end
	add("- Convergence: the loss tolerance and accuracy tolerance above, against the GPU baseline's loss log "
		.. "and benchmark.")
	local eval = ctx.config("evaluation")
	add("- Evaluation scheme: " .. (eval and eval ~= "" and eval
		or "**to be agreed**: the metric, the evaluation data and who runs it "
		.. "(`ferry config design.migration_plan.evaluation \"top-1 on the 50,000 validation images, same script on both\"`)."))
	add("")
	add("## Target software versions")
	add("")
	add("From the torch_npu release matrix (`version_matrix.json`, sources in its entries).")
	add("")
	local row = exact and matrix_row(ctx, ep.torch_base(exact.version))
	if row then
		add("- " .. row_text(row) .. ".")
		if row.status ~= "active" then
			add("- That pairing is no longer maintained; maintained PyTorch versions: " .. maintained_torches(ctx) .. ".")
		end
	elseif exact then
		add(string.format("- No torch_npu release exists for PyTorch %s: the migration moves to a maintained version "
			.. "first (%s), and the GPU baseline is measured again on it.", ep.torch_base(exact.version), maintained_torches(ctx)))
	elseif pins[1] then
		local fit = maintained_torches(ctx, pins[1])
		add(string.format("- To be chosen with the PyTorch version; maintained versions that satisfy `%s`: %s.", pins[1].text,
			fit ~= "" and fit or "none (maintained: " .. maintained_torches(ctx) .. ")"))
	else
		add("- To be chosen with the PyTorch version; maintained versions: " .. maintained_torches(ctx) .. ".")
	end
	local use = tvops.adapter_use(ctx)
	if use then
		local function with_adapter(list)
			local fit = {}
			for v in list:gmatch("[^, ]+") do
				if tvops.adapter_for(ctx, v) then fit[#fit + 1] = v end
			end
			return table.concat(fit, ", ")
		end
		local fit = with_adapter(row and row.torch or maintained_torches(ctx, pins[1]))
		local any = with_adapter(maintained_torches(ctx))
		add(string.format("- `%s` (%s:%d) runs on NPU tensors only through the Torchvision Adapter (torchvision_npu), "
			.. "built for torch %s only (`torchvision_npu.json`): %s.", use.text, use.path, use.line, tvops.adapter_torches_text(ctx),
			fit ~= "" and "of the versions above, " .. fit .. " have both"
			or any ~= "" and "none of the versions above has both; pin one of the maintained versions that have both ("
				.. any .. ") or plan to run it on the CPU"
			or "no maintained version has both; plan to run it on the CPU"))
	end
	local probe = ep.latest(ctx)
	if probe then
		local pk = probe.python.packages
		add(string.format("- On the NPU host (%s): CANN %s, torch %s, torch_npu %s.", ep.host_label(probe),
			probe.cann.toolkit.version or "not found", pk.torch or "not installed", pk.torch_npu or "not installed"))
	else
		add("- The NPU host is not probed yet (environment phase).")
	end
	add("")
end

-- Inference design (framework, model, hardware, versions, targets, evaluation), when
-- something points to inference or the team said so: 003 §3.2.1.
local function inference_design(ctx, add)
	add("## Inference design")
	add("")
	local planned, how, s = inf.planned(ctx)
	if how == "no" then
		add("Out of scope (`design.migration_plan.inference` = no).")
		add("")
		return
	end
	if not planned then
		add("Not planned: nothing points to inference (no ONNX export to a file outside test code, no ONNX model, ATC log or "
			.. "inference benchmark ingested, no inference SoC). `ferry config design.migration_plan.inference yes` "
			.. "plans it.")
		add("")
		return
	end
	if #s.reasons > 0 then
		local r = {}
		for _i, x in ipairs(s.reasons) do r[#r + 1] = tostring(x) end
		add("Planned because " .. table.concat(r, "; ") .. ".")
	else
		add("Planned (`design.migration_plan.inference` = yes).")
	end
	add("")
	local offline = "converted by ATC to an offline model (`.om`) for the target SoC, run through AscendCL "
		.. "(`ais_bench` to measure)"
	local serving = "a language model served by MindIE or vLLM-Ascend (see `infer-convert.llm_serving`), weights in "
		.. "bf16 or fp16"
	if s.llm and s.onnx then
		add("- Framework: " .. serving .. "; the models exported to ONNX " .. offline .. ".")
	else
		add("- Framework: " .. (s.llm and serving or ("the model exported to ONNX, " .. offline)) .. ".")
	end
	local models = ctx.artifacts("onnx") or {}
	if #models > 0 then
		add("- Models:")
		for _i, a in ipairs(models) do
			add(string.format("  - artifact %s: `%s`%s", tostring(a.id), a.path or "?", a.label and a.label ~= ""
				and (" (" .. a.label .. ")") or ""))
		end
	else
		add("- Models: none ingested yet (`ferry ingest onnx MODEL.onnx`).")
	end
	local exports = export.project(ctx)
	if #exports.exports > 0 then
		add("  Exported by:")
		export_sites(ctx, add, exports)
	end
	local soc = ctx.config("target.soc")
	local io = plan.inference_only(ctx, soc)
	if not soc then
		add("- Hardware: **to be decided** (`ferry config target.soc NAME`).")
	elseif io then
		add(string.format("- Hardware: `%s`, an inference part.", soc))
	else
		add(string.format("- Hardware: `%s`, the training SoC (an Atlas 300I/V card costs less for serving "
			.. "where the model fits).", soc))
	end
	add("- Software versions: the CANN of the training design above; ATC and AOE come with its toolkit.")
	local got = {}
	for _i, c in ipairs(plan.criteria(ctx)) do
		if c.key ~= "tolerance.loss" then
			got[#got + 1] = c.text and tostring(c.text) or ("**" .. tostring(c.label) .. " to be agreed** (`" .. c.key .. "`)")
		end
	end
	add("- Precision and performance targets: " .. table.concat(got, "; ") .. ", measured with ingested "
		.. "benchmarks (`ferry ingest bench`, a batch-size sweep).")
	local eval = ctx.config("evaluation")
	add("- Evaluation scheme: the model's outputs on the same inputs compared with the GPU's (`ferry compare dump`)"
		.. (eval and eval ~= "" and ("; " .. eval) or "") .. ".")
	add("")
end

-- Effort by service line (the assessment's quote: the estimate from the open assess
-- findings, or the days agreed) and the calendar time it takes the planned team.
local function effort_and_schedule(ctx, add)
	add("## Effort and schedule")
	add("")
	local a = ctx.assessment()
	if not a.ran then
		add("The assessment has not run yet (`ferry check --phase assess`); it estimates the effort by service line.")
		add("")
		return
	end
	local titles = {}
	for _i, s in ipairs(ctx.data("categories").services) do titles[s.name] = s.title end
	add("| service line | person-days | basis |")
	add("|---|---|---|")
	for _i, l in ipairs(a.quote.services) do
		if l.days > 0 or l.agreed_days then
			add(string.format("| %s | %.1f | %s |", titles[l.name] or l.name, l.days,
				l.agreed_days and string.format("agreed (estimate %.1f)", l.estimate_days) or "estimate"))
		end
	end
	add(string.format("| total | %.1f | |", a.quote.days))
	add("")
	local team = ctx.config("team")
	if team then
		add(string.format("With %d %s full time: about %.1f weeks of five working days.", team,
			team == 1 and "person" or "people", a.quote.days / team / 5))
	else
		add("Calendar time: record the team size with `ferry config design.migration_plan.team N`.")
	end
	add("The estimate weighs the open assess findings (`ferry report --section assessment` shows the formula); "
		.. "`ferry config quote.days.<line> DAYS` records the days agreed for a line.")
	add("")
end

-- Bytes a full training checkpoint keeps per parameter: the model states of
-- mixed-precision Adam without the gradients (environment.memory's 16 bytes, the ZeRO
-- paper's, less the 2 of the 16-bit gradients): 16-bit weights 2, FP32 master weights 4,
-- Adam's two moments 8.
local CHECKPOINT_BYTES = 14
local TB = 1e12

local function money(x, currency)
	local s
	if x > 0 and x < 1 then
		s = "< 1"
	else
		s = string.format("%.0f", x):reverse():gsub("(%d%d%d)", "%1,"):reverse():gsub("^,", "")
	end
	return currency and (s .. " " .. currency) or s
end

-- A unit price setting: a number from 0 up to a trillion, else nil and the reason shown in
-- the plan in place of a cost.
local PRICE_MAX = 1e12
local function price(ctx, name)
	local v = ctx.config(name)
	if v == nil then return nil end
	if v ~= v or v < 0 or v > PRICE_MAX then
		return nil, string.format("`design.migration_plan.%s` = %s is not a price (0 to %g)", name, tostring(v), PRICE_MAX)
	end
	return v
end

-- The resources the plan needs (NPU servers, storage for checkpoints and the data set) and,
-- with the unit prices recorded, their monthly cost and the cost over the schedule
-- (003 §2: the resource and cost plan of a migration engagement).
local function resources_and_cost(ctx, add)
	add("## Resources and cost")
	add("")
	local soc = ctx.config("target.soc")
	local entry = plan.soc(ctx, soc)
	add("- NPU: " .. (soc and ("`" .. soc .. "`" .. (entry and string.format(" (%s, %d GB per card%s)", entry.product,
		entry.memory_gb, entry.verified and "" or ", unverified figure") or "")) or "**to be decided** (`ferry config target.soc NAME`)"))
	add("- Cards: " .. (ctx.config("target.cards") or "**to be decided** (`ferry config target.cards N`)"))
	add("- Nodes: " .. (ctx.config("target.nodes") or "1 (`ferry config target.nodes N` for more)"))
	add("- Model size: " .. (ctx.config("model.params_b") and (ctx.config("model.params_b") .. " billion parameters")
		or "**unknown** (`ferry config model.params_b N`)"))
	add("")
	local cards, nodes = ep.config_number(ctx, "target.cards"), ep.config_number(ctx, "target.nodes") or 1
	local params_b = ep.config_number(ctx, "model.params_b")
	local kept, data_tb = ctx.config("checkpoints"), ctx.config("dataset_tb")
	local server_price, server_bad = price(ctx, "server_month")
	local tb_price, tb_bad = price(ctx, "storage_tb_month")
	local currency = ctx.config("quote.currency")
	local rows, total, priced_all = {}, 0, true
	local function row(what, qty, basis, unit, bad)
		local cost = unit and qty and unit * qty
		if cost then total = total + cost else priced_all = false end
		rows[#rows + 1] = string.format("| %s | %s | %s | %s |", what, qty and string.format("%g", qty) or "**to be decided**",
			basis, cost and money(cost, currency) or bad or "unit price not recorded")
	end
	-- a server holds at most MAX_PER_NODE cards: more cards than the nodes hold need more servers
	local servers = cards and math.max(nodes, math.ceil(cards / plan.MAX_PER_NODE))
	local basis = "`target.cards` not recorded"
	if cards then
		basis = string.format("%d card(s), %d per server", cards, math.ceil(cards / servers))
		if servers > nodes then
			basis = basis .. string.format(" (`target.nodes` %d cannot hold them at %d per server)", nodes, plan.MAX_PER_NODE)
		end
	end
	row(string.format("NPU servers%s", entry and (" (" .. entry.product .. ")") or ""), servers, basis, server_price, server_bad)
	local ckpt_tb = params_b and params_b * 1e9 * CHECKPOINT_BYTES / TB
	local ckpt_basis = ckpt_tb and string.format("%.3g TB per full checkpoint (%g billion parameters x %d bytes: 16-bit and "
		.. "FP32 weights, Adam's moments) x %s kept", ckpt_tb, params_b, CHECKPOINT_BYTES, kept and tostring(kept) or "N (`checkpoints`)")
		or "`model.params_b` not recorded"
	row("storage for checkpoints (TB)", ckpt_tb and kept and tonumber(string.format("%.3g", ckpt_tb * kept)) or nil,
		ckpt_basis, tb_price, tb_bad)
	row("storage for the data set (TB)", data_tb, data_tb and "`dataset_tb`" or "size not recorded (`dataset_tb`)", tb_price, tb_bad)
	add("| resource | quantity | basis | per month |")
	add("|---|---|---|---|")
	for _i, r in ipairs(rows) do add(r) end
	if total > 0 then
		add(string.format("| total | | | %s%s |", money(total, currency), priced_all and "" or " (priced rows only)"))
	end
	add("")
	local a, team = ctx.assessment(), ctx.config("team")
	if total > 0 and a.ran and team and team > 0 then
		-- the resources are rented by the month (003 §2 prices them monthly)
		local weeks = a.quote.days / team / 5
		local months = math.max(1, math.ceil(weeks / (52 / 12)))
		add(string.format("Over the schedule (%.1f weeks with the planned team, so %d month(s) of rent): about %s.", weeks, months,
			money(total * months, currency)))
		add("")
	end
	add("Unit prices come from the provider's price list or bill: `ferry config design.migration_plan.server_month PRICE` "
		.. "(one NPU server a month), `design.migration_plan.storage_tb_month PRICE` (one TB of storage a month), "
		.. "`design.migration_plan.dataset_tb N` and `design.migration_plan.checkpoints N`; the currency is `quote.currency`. "
		.. "For scale, the 003 guide's example of a migration engagement (2025) lists one bare-metal server with 8 x Ascend 910 "
		.. "at 45,000 CNY a month, ten 500 GB SSD volumes at 3,500 CNY and a 5 TB object-storage package at 456 CNY, "
		.. "besides network and security services; the bill decides.")
	add("")
end

local function build(ctx)
	local o = {}
	local function add(s) o[#o + 1] = s end
	add("# Migration plan")
	add("")
	add("Generated by ferry (check `design.migration_plan`) from the engagement settings. Edit it freely: ferry "
		.. "never overwrites it. The decisions below are recorded with `ferry config` and appear in `ferry report`.")
	add("")
	add("## Strategy")
	add("")
	local s, desc = plan.strategy(ctx)
	if s then
		add("Chosen: **" .. s .. "**, " .. desc .. ".")
	else
		add("Not chosen yet. `ferry status` shows the strategy the assessment recommends and the findings behind it; "
			.. "record the decision with `ferry config strategy auto|tool|manual`.")
	end
	add("")
	add("## Acceptance criteria")
	add("")
	-- where each is held (plan.bench_phases): the acceptance checks of those phases block
	-- their sign-off on it
	local held = plan.bench_phases(ctx)
	add("Measured against the GPU baseline: the loss tolerance and the dump thresholds in the tune phase; the "
		.. "accuracy tolerance and the throughput target "
		.. (held.tune and held.infer and "there too, on the training benchmarks, and in infer-optimize, on the inference ones"
			or held.tune and "there too"
			or "in infer-optimize, on the inference benchmarks (the code has no training step)") .. ".")
	add("")
	for _i, c in ipairs(plan.criteria(ctx)) do
		if c.text then
			add(string.format("- %s (`%s` = %s): %s.", c.label:sub(1, 1):upper() .. c.label:sub(2), c.key, c.value, c.text))
		else
			add(string.format("- %s: **to be agreed** (`ferry config %s %s`).", c.label:sub(1, 1):upper() .. c.label:sub(2),
				c.key, c.example))
		end
	end
	local d = plan.dump_thresholds(ctx)
	if d.problem then
		add("- Dump thresholds: **malformed**, " .. tostring(d.problem) .. " (`ferry config " .. d.key .. " 1e-5`).")
	elseif d.rule == "allclose" then
		add(string.format("- Dump thresholds (`tolerance.dump_atol` = %s, `tolerance.dump_rtol` = %s): `ferry compare dump` "
			.. "passes a tensor pair with %s.", ctx.config("tolerance.dump_atol") or "0", ctx.config("tolerance.dump_rtol") or "0",
			tostring(d.text)))
	else
		add("- Dump thresholds: none agreed, so `ferry compare dump` judges layer dumps by " .. tostring(d.text)
			.. " (to agree thresholds instead: `ferry config tolerance.dump_atol 1e-5`, `ferry config tolerance.dump_rtol 1e-3`).")
	end
	add("")
	add("## GPU baseline")
	add("")
	local b = plan.baseline(ctx)
	if b and #b.missing == 0 then
		add(string.format("%s on %s in %s: accuracy %g, throughput %g (artifact %s).", b.doc.label, b.doc.hardware,
			b.doc.precision, b.metrics.accuracy, b.metrics.throughput, tostring(b.artifact.id)))
		local pct = tonumber(ctx.config("throughput.target_pct") or "")
		if pct then
			add("")
			add(string.format("Throughput to reach on the NPUs: %g x %g %% = %g.", b.metrics.throughput, pct,
				b.metrics.throughput * pct / 100))
		end
	else
		add("**Not recorded yet**: ingest a `ferry-bench/1` document with `ferry ingest bench FILE --label gpu`.")
	end
	add("")
	resources_and_cost(ctx, add)
	add("## Parallel strategy")
	add("")
	local p = plan.parallel(ctx)
	if p.missing then
		local keys = {}
		for _i, m in ipairs(p.missing) do keys[#keys + 1] = "`" .. m.key .. "`" end
		add("Needs " .. table.concat(keys, ", ") .. " to be recorded first.")
	elseif p.unknown_soc then
		add("No device-memory figure for `" .. p.unknown_soc .. "`; known SoCs: " .. p.known .. ".")
	else
		add("Recommended: **" .. p.summary .. "**.")
		add("")
		for _i, l in ipairs(p.lines) do add("- " .. l) end
	end
	add("")
	training_design(ctx, add)
	inference_design(ctx, add)
	effort_and_schedule(ctx, add)
	add("## Phases and checklist")
	for i, ph in ipairs(CHECKLIST) do
		add("")
		add(string.format("### %d. %s: %s", i, ph[1], ph[2]))
		add("")
		for _i, item in ipairs(ph[3]) do add("- [ ] " .. item) end
	end
	return table.concat(o, "\n") .. "\n"
end

return {
	id = "design.migration_plan",
	phase = "design",
	title = _("Migration plan document (docs/MIGRATION_PLAN.md)"),
	severity = "warning",
	category = "plan",
	settings = {
		dataset = { type = "text",
			help = _("the training data set for the plan: name, size, format and where the NPU host reads it") },
		evaluation = { type = "text",
			help = _("the evaluation scheme for the plan: metric, evaluation data and who runs it") },
		team = { type = "count",
			help = _("people working on the migration full time, for the plan's calendar estimate") },
		server_month = { type = "number",
			help = _("the plan's cost: price of one NPU server (all its cards) a month, in quote.currency") },
		storage_tb_month = { type = "number",
			help = _("the plan's cost: price of one TB of storage a month, in quote.currency") },
		dataset_tb = { type = "number",
			help = _("the plan's resources: size of the training data set in TB") },
		checkpoints = { type = "count",
			help = _("the plan's resources: full training checkpoints kept at a time") },
		inference = { type = "word", values = { "auto", "yes", "no" }, default = "auto",
			help = _("plan the inference migration: auto (when the code or the evidence points to it), yes or no") },
	},
	description = _("Offers docs/MIGRATION_PLAN.md: the chosen strategy, the acceptance criteria, the "
		.. "GPU baseline, the resources and their cost (NPU servers, storage for checkpoints and the data set, priced from "
		.. "the unit prices recorded), the parallel-strategy advice, the training design (framework, "
		.. "source code, data set and where the code loads it, evaluation scheme), the target software "
		.. "versions from the torch_npu release matrix, the inference design when the code or the evidence "
		.. "points to inference, the effort by service line with the calendar time for the team, and every "
		.. "phase's checklist, written from the engagement settings, the assessment and the code. Apply it with `ferry fix --plugin "
		.. "design.migration_plan --yes` (one checkpoint). An existing plan is never overwritten; "
		.. "when the settings have changed since, an info finding says so."),
	run = function(ctx)
		local text = build(ctx)
		local current = ctx.read(PATH)
		if current == text then return end
		if current then
			ctx.report{
				file = PATH,
				key = "stale",
				severity = "info",
				message = _("{file} differs from the plan the current engagement settings give (settings changed, or it was edited by hand).",
					{ file = PATH }),
				suggestion = _("Keep your edits, or delete the file and run `ferry check --phase design` and "
					.. "`ferry fix --plugin design.migration_plan --yes` to write it afresh."),
			}
			return
		end
		ctx.report{
			file = PATH,
			key = PATH,
			message = _("The project has no migration plan: {file} would record the strategy, the acceptance "
				.. "criteria, the resource and parallel plan and the checklist of every phase.", { file = PATH }),
			suggestion = _("Run `ferry fix --plugin design.migration_plan --yes` to write it (one checkpoint), then review it with the client."),
			edits = { { start_byte = 0, end_byte = 0, text = text } },
		}
	end,
}
