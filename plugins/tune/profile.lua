-- tune.profile: what an ingested NPU profile says (`ferry ingest profile FILE`).
--
-- Per artifact (reference: tune-and-inference-formats §3): the operator types that take
-- the most device time; AI CPU operators (msprof-analyze advisor reports those whose
-- longest run is at least 20 µs); the share of step time spent in communication that is
-- not overlapped with computation; host-bound signs (device idle, "Free", for at least
-- FREE_SHARE of the step: ferry's threshold); slow ranks (mean step time across devices
-- differing by more than 5 %, the advisor's RATIO_THRESHOLD); and operators that are all
-- compiled for dynamic shapes (the advisor's dynamic-shape rule).

local prof = require("profile")

local TOP = 5
local AICPU_MIN_US = 20
local FREE_SHARE = 0.10
local COMM_SHARE = 0.10
local SLOW_RANK = 0.05

local function pct(x) return string.format("%.1f %%", x * 100) end

local function name_of(a)
	if a.label and a.label ~= "" then return string.format("profile '%s' (artifact %s)", a.label, tostring(a.id)) end
	return "profile artifact " .. tostring(a.id)
end

return {
	id = "tune.profile",
	phase = "tune",
	title = "Profile analysis: top operators, AI CPU operators, communication, host-bound steps",
	severity = "info",
	category = "performance",
	description = "Reads the profiles ingested with `ferry ingest profile FILE` (op_statistic.csv, "
		.. "kernel_details.csv, step_trace_time.csv from torch_npu.profiler's ASCEND_PROFILER_OUTPUT, or "
		.. "trace_view.json) and reports where device time goes: the top operator types, AI CPU "
		.. "operators, communication that is not hidden behind computation, idle device time that points "
		.. "to a host-bound step, slow ranks, and operators compiled for dynamic shapes.",
	run = function(ctx)
		for _, a in ipairs(ctx.artifacts("profile") or {}) do
			local what = name_of(a)
			local text, why = ctx.read_artifact(a.id)
			local s
			if text then s, why = prof.summarize(text, ctx.decode_json) end
			if not s then
				ctx.report{
					key = "unreadable:" .. a.id,
					message = what .. " could not be analysed: " .. tostring(why) .. ".",
					suggestion = "Ingest the CSV tables from the profiler's ASCEND_PROFILER_OUTPUT folder: op_statistic.csv "
						.. "(operator time), kernel_details.csv (every kernel) and step_trace_time.csv (step breakdown).",
				}
			else
				if #s.ops > 0 and s.total_us > 0 then
					local parts = {}
					for i = 1, math.min(TOP, #s.ops) do
						local o = s.ops[i]
						parts[#parts + 1] = string.format("%s %s (%d calls)", o.type, pct(o.total_us / s.total_us), o.count)
					end
					ctx.metric("profile_op_time_us", s.total_us, "us")
					ctx.report{
						key = "top:" .. a.id,
						message = string.format("%s: the top operator types by device time are %s.", what, table.concat(parts, ", ")),
						suggestion = "Optimise from the top: check whether a fused torch_npu API covers the pattern (npu_fusion_attention, "
							.. "npu_rms_norm, npu_rotary_mul, npu_swiglu, NpuFused* optimizers) and run "
							.. "`msprof-analyze advisor all -d <profiling folder>` for per-operator advice.",
					}
				end
				local slow = {}
				for _, o in ipairs(s.aicpu) do
					if o.max_us >= AICPU_MIN_US then
						slow[#slow + 1] = string.format("%s (%d calls, %.0f us in total, longest %.0f us)", o.type, o.count, o.total_us, o.max_us)
					end
				end
				if #slow > 0 then
					ctx.report{
						key = "aicpu:" .. a.id, severity = "warning",
						message = string.format("%s: %d operator type(s) run on the AI CPU instead of the AI Core: %s.", what, #slow,
							table.concat(slow, "; ")),
						suggestion = "AI CPU operators are much slower and stall the pipeline. Find where the model calls them; they are often caused "
							.. "by float64 or int64 inputs (cast to float32/int32) or by an operator without an AI Core kernel (replace it, or move "
							.. "that step out of the training loop).",
						data = { ops = slow },
					}
				end
				local st = s.step
				if st and (st.compute_us + st.comm_us + st.free_us) > 0 then
					local total = st.compute_us + st.comm_us + st.free_us
					local comm, free = st.comm_us / total, st.free_us / total
					ctx.metric("profile_comm_share", comm * 100, "%")
					ctx.metric("profile_free_share", free * 100, "%")
					if free >= FREE_SHARE then
						ctx.report{
							key = "free:" .. a.id, severity = "warning",
							message = string.format("%s: the device is idle for %s of the step time (computation %s, exposed communication %s): "
								.. "the step looks host-bound.", what, pct(free), pct(st.compute_us / total), pct(comm)),
							suggestion = "Keep the NPU fed: remove host syncs in the loop (.item(), .cpu(), print of tensors), give the DataLoader "
								.. "workers and pin_memory, export TASK_QUEUE_ENABLE=2, and for dynamic shapes call "
								.. "torch_npu.npu.set_compile_mode(jit_compile=False).",
						}
					end
					if comm >= COMM_SHARE then
						ctx.report{
							key = "comm:" .. a.id,
							message = string.format("%s: communication not overlapped with computation takes %s of the step time.", what, pct(comm)),
							suggestion = "Overlap communication with computation: larger gradient buckets (DistributedDataParallel(bucket_cap_mb=500) "
								.. "per Ascend's advice), fewer but larger collectives, and a parallel layout that keeps tensor parallelism within a node.",
						}
					end
				elseif s.comm_us > 0 and s.total_us > 0 then
					ctx.metric("profile_comm_share", s.comm_us / s.total_us * 100, "%")
					if s.comm_us / s.total_us >= COMM_SHARE then
						ctx.report{
							key = "comm:" .. a.id,
							message = string.format("%s: communication kernels (HCCL) take %s of the device time.", what, pct(s.comm_us / s.total_us)),
							suggestion = "Ingest step_trace_time.csv to see how much of it is hidden behind computation; if it is exposed, use larger "
								.. "gradient buckets (DistributedDataParallel(bucket_cap_mb=500)) and keep tensor parallelism within a node.",
						}
					end
				end
				if s.devices then
					local lo, hi, nd, lo_d, hi_d = math.huge, 0, 0, nil, nil
					for d, v in pairs(s.devices) do
						nd = nd + 1
						if v < lo then lo, lo_d = v, d end
						if v > hi then hi, hi_d = v, d end
					end
					if nd > 1 and lo > 0 and (hi - lo) / lo > SLOW_RANK then
						ctx.report{
							key = "slowrank:" .. a.id, severity = "warning",
							message = string.format("%s: device %s takes %.0f us per step on average, %s more than device %s (%.0f us): a slow rank holds the others back.",
								what, hi_d, hi, pct((hi - lo) / lo), lo_d, lo),
							suggestion = "Compare the slow device's computation, communication and idle time with the others (msprof-analyze cluster "
								.. "analysis); check its host load, data shard size and link health.",
						}
					end
				end
				if s.dynamic then
					ctx.report{
						key = "dynamic:" .. a.id, severity = "warning",
						message = what .. ": every operator is compiled for dynamic shapes (OP State \"dynamic\"), which costs compilation and dispatch time.",
						suggestion = "Call torch_npu.npu.set_compile_mode(jit_compile=False) at start-up so binary kernels are used, and pad inputs to "
							.. "a few fixed shapes where possible.",
					}
				end
			end
		end
	end,
}
