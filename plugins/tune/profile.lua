-- tune.profile: what an ingested NPU profile says (`ferry ingest profile FILE`).
--
-- The profile is read by the host (ctx.profile: app/profile.c streams kernel_details.csv,
-- op_statistic.csv, step_trace_time.csv or a trace JSON of any size; reference:
-- tune-and-inference-formats §3). Per artifact: the operator types and kernels that take
-- the most device time; AI CPU operators; the share of communication; idle time between
-- device operators; steps in which the device waited for the host; ranks slower than the
-- median; operators all compiled for dynamic shapes; and where reading stopped when the
-- file is cut short. Across artifacts of the same form, each one's ranks are compared too.
-- Thresholds and their sources: plugins/data/profile_rules.json.

local words = require("words")

local function pct(x) return string.format("%.1f %%", x * 100) end

local function name_of(a)
	if a.label and a.label ~= "" then return _("profile '{label}' (artifact {id})", { label = a.label, id = tostring(a.id) }) end
	return _("profile artifact {id}", { id = tostring(a.id) })
end

-- The median of the ranks' values; for an even count the lower middle one, so with two
-- ranks the faster is the reference (the advisor's spread ratio).
local function median(list)
	local v = {}
	for _i, r in ipairs(list) do v[#v + 1] = r.value end
	table.sort(v)
	return v[(#v + 1) // 2]
end

local function slow_ranks(ctx, key, what, ranks, ratio, per_step)
	if #ranks < 2 then return end
	local med = median(ranks)
	if not med or med <= 0 then return end
	local slow = {}
	for _i, r in ipairs(ranks) do
		if (r.value - med) / med > ratio then slow[#slow + 1] = r end
	end
	table.sort(slow, function(x, y) return x.value > y.value end)
	for _i, r in ipairs(slow) do
		ctx.report{
			key = "slowrank:" .. key .. ":" .. r.id, severity = "warning",
			message = per_step
				and _("{what}: {rank} takes {us} us per step on average, {pct} more than the median of the {n} ranks ({median} us): a slow rank holds the others back.",
					{ what = what, rank = r.id, us = string.format("%.0f", r.value), pct = pct((r.value - med) / med), n = #ranks,
					  median = string.format("%.0f", med) })
				or _("{what}: {rank} takes {us} us of device time, {pct} more than the median of the {n} ranks ({median} us): a slow rank holds the others back.",
					{ what = what, rank = r.id, us = string.format("%.0f", r.value), pct = pct((r.value - med) / med), n = #ranks,
					  median = string.format("%.0f", med) }),
			suggestion = _("Compare the slow rank's computation, communication and idle time with the others (msprof-analyze cluster analysis); check its host load, data shard size and link health."),
		}
	end
end

local function analyse(ctx, a, s, rules, cross)
	local what = name_of(a)
	local top = rules.top
	if s.stopped then
		ctx.report{
			key = "partial:" .. a.id, severity = "warning",
			message = _("{what}: reading stopped at {where}; the figures below cover the {rows} rows or events before it.",
				{ what = what, where = s.stopped, rows = math.tointeger(s.rows) or 0 }),
			suggestion = _("The file was cut short (the profiler was stopped while writing, or the copy is incomplete). Export the profile again and ingest the complete file to analyse every step."),
		}
	end
	if #s.types > 0 and s.total_us > 0 then
		local parts = {}
		for i = 1, math.min(top, #s.types) do
			local o = s.types[i]
			parts[#parts + 1] = string.format("%s %s (%d calls)", o.name, pct(o.total_us / s.total_us), math.tointeger(o.count) or 0)
		end
		local named, kernels = false, nil
		for i = 1, math.min(top, #s.ops) do named = named or (s.ops[i].type ~= "" and s.ops[i].type ~= s.ops[i].name) end
		if named then
			local k = {}
			for i = 1, math.min(top, #s.ops) do
				local o = s.ops[i]
				k[#k + 1] = string.format("%s%s %.0f us (avg %.1f us)", o.name, o.type ~= "" and (" [" .. o.type .. "]") or "",
					o.total_us, o.avg_us)
			end
			kernels = table.concat(k, ", ")
		end
		local args = { what = what, types = table.concat(parts, ", "), kernels = kernels }
		local msg
		if s.device and kernels then
			msg = _("{what}: the top operator types by device time are {types}. Longest-running kernels: {kernels}.", args)
		elseif s.device then
			msg = _("{what}: the top operator types by device time are {types}.", args)
		elseif kernels then
			msg = _("{what}: the top operator types by host (a CPU-only trace: no device operators) time are {types}. Longest-running kernels: {kernels}.", args)
		else
			msg = _("{what}: the top operator types by host (a CPU-only trace: no device operators) time are {types}.", args)
		end
		ctx.metric("profile_op_time_us", s.total_us, "us")
		ctx.report{
			key = "top:" .. a.id,
			message = msg,
			suggestion = _("Optimise from the top: check whether a fused torch_npu API covers the pattern (npu_fusion_attention, npu_rms_norm, npu_rotary_mul, npu_swiglu, NpuFused* optimizers) and run `msprof-analyze advisor all -d <profiling folder>` for per-operator advice."),
		}
	end
	local slow = {}
	for _i, o in ipairs(s.aicpu) do
		if o.max_us >= rules.aicpu_min_us then
			slow[#slow + 1] = _("{op} ({calls} calls, {total} us in total, longest {max} us)", { op = o.name,
				calls = math.tointeger(o.count) or 0, total = string.format("%.0f", o.total_us), max = string.format("%.0f", o.max_us) })
		end
	end
	if #slow > 0 then
		ctx.report{
			key = "aicpu:" .. a.id, severity = "warning",
			message = _("{what}: {n} operator type(s) run on the AI CPU instead of the AI Core: {ops}.", { what = what, n = #slow,
				ops = words.join(slow, ";") }),
			suggestion = _("AI CPU operators are much slower and stall the pipeline. Find where the model calls them and {advice}; otherwise move that step out of the training loop.",
				{ advice = _(rules.aicpu_advice or "") }),
			data = { ops = slow },
		}
	end
	local b = s.breakdown
	local bt = b and (b.compute_us + b.comm_us + b.free_us) or 0
	if bt > 0 then
		local comm, free = b.comm_us / bt, b.free_us / bt
		ctx.metric("profile_comm_share", comm * 100, "%")
		ctx.metric("profile_free_share", free * 100, "%")
		if free >= rules.free_share then
			ctx.report{
				key = "free:" .. a.id, severity = "warning",
				message = _("{what}: the device is idle for {free} of the step time (computation {compute}, exposed communication {comm}): the step looks host-bound.",
					{ what = what, free = pct(free), compute = pct(b.compute_us / bt), comm = pct(comm) }),
				suggestion = _("Keep the NPU fed: remove host syncs in the loop (.item(), .cpu(), print of tensors), give the DataLoader workers and pin_memory, export TASK_QUEUE_ENABLE=2, and for dynamic shapes call torch_npu.npu.set_compile_mode(jit_compile=False)."),
			}
		end
		if comm >= rules.comm_share then
			ctx.report{
				key = "comm:" .. a.id,
				message = _("{what}: communication not overlapped with computation takes {comm} of the step time.", { what = what, comm = pct(comm) }),
				suggestion = _("Overlap communication with computation: larger gradient buckets (DistributedDataParallel(bucket_cap_mb=500) per Ascend's advice), fewer but larger collectives, and a parallel layout that keeps tensor parallelism within a node."),
			}
		end
	elseif s.comm_us > 0 and s.total_us > 0 then
		ctx.metric("profile_comm_share", s.comm_us / s.total_us * 100, "%")
		if s.comm_us / s.total_us >= rules.comm_share then
			ctx.report{
				key = "comm:" .. a.id,
				message = _("{what}: communication kernels (HCCL) take {comm} of the device time.", { what = what, comm = pct(s.comm_us / s.total_us) }),
				suggestion = _("Ingest step_trace_time.csv to see how much of it is hidden behind computation; if it is exposed, use larger gradient buckets (DistributedDataParallel(bucket_cap_mb=500)) and keep tensor parallelism within a node."),
			}
		end
	end
	if s.device and s.idle_us > 0 and s.busy_us > 0 then
		local share = s.idle_us / (s.idle_us + s.busy_us)
		ctx.metric("profile_idle_share", share * 100, "%")
		if share >= rules.idle_share then
			ctx.report{
				key = "idle:" .. a.id, severity = "warning",
				message = _("{what}: the device streams sit idle between operators for {idle} us, {share} of their time ({busy} us busy).",
					{ what = what, idle = string.format("%.0f", s.idle_us), share = pct(share), busy = string.format("%.0f", s.busy_us) }),
				suggestion = _("Gaps between device operators mean the host does not dispatch fast enough: export TASK_QUEUE_ENABLE=2, remove host syncs (.item(), .cpu()) from the loop, and check the host-bound steps below."),
			}
		end
	end
	local st = s.steps
	if st and st.count > 0 and st.over > 0 and s.form == "trace" then
		local w = {}
		for i = 1, math.min(3, #st.worst) do
			local x = st.worst[i]
			w[#w + 1] = _("{step} waits {free} of {dur} us", { step = x.id, free = string.format("%.0f", x.free_us), dur = string.format("%.0f", x.dur_us) })
		end
		ctx.report{
			key = "hoststeps:" .. a.id, severity = "warning",
			message = _("{what}: in {over} of {count} steps the device is without work for at least {share} of the step (host-bound); worst: {worst}.",
				{ what = what, over = math.tointeger(st.over) or 0, count = math.tointeger(st.count) or 0, share = pct(rules.free_share),
				  worst = words.join(w, ";") }),
			suggestion = _("Per step, the time not covered by device operators is host work: data loading, Python overhead, synchronisation. Give the DataLoader workers and pin_memory, export TASK_QUEUE_ENABLE=2 and remove host syncs."),
		}
	end
	-- steps far slower than the median step: work outside the steady loop. 003 §3.5.1 names
	-- Python's garbage collector as a cause of such jitter in large training; checkpoints,
	-- logging every N steps and a loader that falls behind are others. The first step is
	-- left out (it compiles and warms the caches).
	if st and st.count >= rules.jitter_min_steps and (st.median_us or 0) > 0 then
		local slow, wait, dur = {}, 0, 0
		for _i, x in ipairs(st.slowest or {}) do
			if x.index > 1 and x.dur_us >= rules.jitter_ratio * st.median_us then
				slow[#slow + 1] = x
				wait, dur = wait + x.free_us, dur + x.dur_us
			end
		end
		if #slow > 0 then
			local w = {}
			for i = 1, math.min(3, #slow) do
				w[#w + 1] = _("{step} {dur} us", { step = slow[i].id, dur = string.format("%.0f", slow[i].dur_us) })
			end
			local host = dur > 0 and wait / dur >= rules.free_share
			local suggestion
			if not s.device then
				-- a trace of the host alone (torch's profiler on the CPU) cannot tell who
				-- held the step up
				suggestion = _("This trace has no device operators, so it cannot tell whether the host or the device held those steps up: profile the NPU run (scripts/npu_profile.py) to see. On the host, look for Python's garbage collector (003 §3.5.1: gc.disable() at start-up and gc.collect() at chosen steps, or gc.set_threshold(700, 10, 5)), checkpoints or logging every N steps, and a DataLoader that falls behind.")
			elseif host then
				suggestion = _("In those steps the device waits for the host ({share} of their time): look for Python's garbage collector (003 §3.5.1: call gc.disable() at start-up and gc.collect() at chosen steps, or set its thresholds with gc.set_threshold(700, 10, 5) as the guide does), checkpoints or logging every N steps, and a DataLoader that falls behind.",
					{ share = pct(wait / dur) })
			else
				suggestion = _("The device is busy in those steps: look for operators compiled again for a new input shape (pad to fixed shapes, torch_npu.npu.set_compile_mode(jit_compile=False)), and for work done every N steps (evaluation, checkpoints). If the host is the cause after all, 003 §3.5.1 suggests gc.disable() or gc.set_threshold(700, 10, 5).")
			end
			ctx.report{
				key = "jitter:" .. a.id, severity = "warning",
				message = _("{what}: steps taking at least {ratio} times the median step ({median} us): {n} of {count}; slowest: {worst}.",
					{ what = what, n = #slow, count = math.tointeger(st.count) or 0, ratio = string.format("%g", rules.jitter_ratio),
					  median = string.format("%.0f", st.median_us), worst = words.join(w, ";") }),
				suggestion = suggestion,
			}
		end
	end
	-- ranks: device time per device, or mean step time (step_trace_time.csv)
	local ranks = {}
	for _i, r in ipairs(s.ranks) do
		local v = s.form == "step_trace_time" and (r.steps > 0 and r.step_us / r.steps or nil) or r.busy_us
		if v then
			local id = _("device {id}", { id = r.id })
			ranks[#ranks + 1] = { id = id, value = v }
			local c = cross[s.form] or {}
			cross[s.form] = c
			c[#c + 1] = { id = #s.ranks == 1 and _("{label} device {id}", { label = a.label or tostring(a.id), id = r.id }) or id,
				value = v, artifact = a.id }
		end
	end
	slow_ranks(ctx, tostring(a.id), what, ranks, rules.slow_rank_ratio, s.form == "step_trace_time")
	if s.dynamic_rows > 0 and s.static_rows == 0 then
		ctx.report{
			key = "dynamic:" .. a.id, severity = "warning",
			message = _("{what}: every operator is compiled for dynamic shapes (OP State \"dynamic\"), which costs compilation and dispatch time.", { what = what }),
			suggestion = _("Call torch_npu.npu.set_compile_mode(jit_compile=False) at start-up so binary kernels are used, and pad inputs to a few fixed shapes where possible."),
		}
	end
end

return {
	id = "tune.profile",
	phase = "tune",
	evidence = { "profile" },
	title = _("Profile analysis: top operators, AI CPU operators, communication, idle time, host-bound steps, slow ranks"),
	severity = "info",
	category = "performance",
	description = _("Reads the profiles ingested with `ferry ingest profile FILE` (kernel_details.csv, op_statistic.csv, "
		.. "step_trace_time.csv from torch_npu.profiler's ASCEND_PROFILER_OUTPUT, or trace_view.json), whatever their size, "
		.. "and reports where device time goes: the top operator types and kernels, AI CPU operators, communication, idle "
		.. "time between device operators, steps in which the device waits for the host, slow ranks, and operators "
		.. "compiled for dynamic shapes."),
	run = function(ctx)
		local data = ctx.data("profile_rules") or {}
		local rules = {}
		for _i, e in ipairs(data.entries or {}) do rules[e.name] = e.value end
		local cross = {}
		local nart = {}
		for _i, a in ipairs(ctx.artifacts("profile") or {}) do
			local s, why = ctx.profile(a.id, { top = 20, free_share = rules.free_share })
			if not s then
				ctx.report{
					key = "unreadable:" .. a.id, severity = "warning",
					message = _("{what} could not be analysed: {why}.", { what = name_of(a), why = tostring(why) }),
					suggestion = _("Ingest a profiler table or trace as the profiler wrote it: kernel_details.csv, op_statistic.csv, step_trace_time.csv or trace_view.json from the ASCEND_PROFILER_OUTPUT folder."),
				}
			else
				nart[s.form] = (nart[s.form] or 0) + 1
				analyse(ctx, a, s, rules, cross)
			end
		end
		-- one rank per artifact (a profile folder per rank): compare the artifacts of one form
		for form, list in pairs(cross) do
			if nart[form] > 1 then
				slow_ranks(ctx, "all:" .. form, _("Across the {form} profiles", { form = form }), list, rules.slow_rank_ratio,
					form == "step_trace_time")
			end
		end
	end,
}
