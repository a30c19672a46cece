-- profile: reading ingested profiling artifacts (torch_npu / msprof output).
--
--   local prof = require("profile")
--   local s, why = prof.summarize(text)   a summary of one artifact, or nil and a reason
--
-- Accepted (reference: tune-and-inference-formats §3.1): op_statistic*.csv (OP Type, Core
-- Type, Count, Total Time(us), Max Time(us)), kernel_details.csv in both header
-- generations (Name/Type/Accelerator Core/Duration(us) or Op Name/OP Type/Task Type/
-- Task Duration(us), optional OP State), step_trace_time.csv (Computing, Communication(Not
-- Overlapped), Free per device and step), and a Chrome trace (trace_view.json) whose
-- overlap-analysis events (Computing, Communication(Not Overlapped), Free) and device
-- kernels (X events with a "Task Type" argument) are used.
--
-- The summary: {form=, ops = {{type=, total_us=, count=, max_us=, core=}...} sorted by
-- time, total_us=, aicpu = {same, AI CPU only}, comm_us=, step = {compute_us=, comm_us=,
-- free_us=, steps=}, devices = {[id] = mean step µs}, dynamic = true when every operator
-- has OP State "dynamic"}. CSV rows are streamed (memory does not grow with the file).

local prof = {}

-- Trace JSON bigger than this is not decoded in a plugin (instruction budget).
prof.MAX_TRACE_BYTES = 8 * 1024 * 1024

-- Splits one CSV record (no line breaks inside quotes are supported: profiler tables have
-- none) into fields.
local function split(line)
	local out = {}
	if not line:find('"', 1, true) then
		for f in (line .. ","):gmatch("([^,]*),") do out[#out + 1] = f end
		return out
	end
	local i, n = 1, #line
	while i <= n + 1 do
		if line:sub(i, i) == '"' then
			local buf, j = {}, i + 1
			while true do
				local q = line:find('"', j, true)
				if not q then buf[#buf + 1] = line:sub(j) j = n + 1 break end
				buf[#buf + 1] = line:sub(j, q - 1)
				if line:sub(q + 1, q + 1) == '"' then
					buf[#buf + 1] = '"'
					j = q + 2
				else
					j = q + 1
					break
				end
			end
			out[#out + 1] = table.concat(buf)
			local c = line:find(",", j, true)
			i = c and c + 1 or n + 2
		else
			local c = line:find(",", i, true)
			out[#out + 1] = line:sub(i, (c or n + 1) - 1)
			i = c and c + 1 or n + 2
		end
	end
	return out
end
prof.split = split

local function trim(s) return (s:gsub("^%s+", ""):gsub("%s+$", "")) end

-- Calls fn(fields) for each data row after the header; returns the header's column
-- index {name = position} (names trimmed, a UTF-8 BOM removed).
function prof.each_row(text, fn)
	local cols, first = {}, true
	for line in text:gmatch("[^\r\n]+") do
		if first then
			first = false
			line = line:gsub("^\239\187\191", "")
			for i, name in ipairs(split(line)) do cols[trim(name)] = i end
			if fn == nil then return cols end
		elseif line:find("%S") then
			fn(split(line))
		end
	end
	return cols
end

-- A finite number in a cell, or nil.
local function num(s)
	if not s then return nil end
	local v = tonumber(trim(s))
	if v and v == v and v ~= math.huge and v ~= -math.huge then return v end
	return nil
end

-- A count in a cell: a whole number from 0 to 2^53, or nil.
local function count_of(s)
	local v = num(s)
	if v and v >= 0 and v <= 2 ^ 53 and v == math.floor(v) then return math.tointeger(v) end
	return nil
end

local function add(ops, ty, us, count, max_us, core)
	local o = ops[ty]
	if not o then
		o = { type = ty, total_us = 0, count = 0, max_us = 0, core = core }
		ops[ty] = o
	end
	o.total_us = o.total_us + us
	o.count = o.count + (count or 1)
	if (max_us or us) > o.max_us then o.max_us = max_us or us end
	if core and core ~= "" then o.core = core end
end

local function finish(s, ops)
	s.ops, s.aicpu, s.total_us = {}, {}, 0
	for _, o in pairs(ops) do
		s.ops[#s.ops + 1] = o
		s.total_us = s.total_us + o.total_us
		if (o.core or ""):upper():find("AI_CPU", 1, true) or (o.core or ""):upper() == "AICPU" then
			s.aicpu[#s.aicpu + 1] = o
		end
	end
	local by = function(a, b)
		if a.total_us ~= b.total_us then return a.total_us > b.total_us end
		return a.type < b.type
	end
	table.sort(s.ops, by)
	table.sort(s.aicpu, by)
	return s
end

local function is_comm(ty, core)
	core = (core or ""):upper()
	return core == "HCCL" or core == "COMMUNICATION" or ty:lower():match("^hcom") ~= nil
end

local function csv_summary(text)
	local cols = prof.each_row(text, nil)
	local function col(...)
		for _, n in ipairs({ ... }) do
			if cols[n] then return cols[n] end
		end
	end
	local s, ops = { comm_us = 0 }, {}
	local ty, core, total, count, maxc = col("OP Type"), col("Core Type"), col("Total Time(us)"), col("Count"), col("Max Time(us)")
	if ty and total then
		s.form = "op_statistic"
		prof.each_row(text, function(f)
			local t, us = f[ty], num(f[total])
			if t and us then
				local c = core and f[core] or nil
				add(ops, trim(t), us, count_of(count and f[count]) or 1, num(maxc and f[maxc]), c and trim(c))
				if is_comm(t, c) then s.comm_us = s.comm_us + us end
			end
		end)
		return finish(s, ops)
	end
	ty = col("Type", "OP Type")
	core = col("Accelerator Core", "Task Type")
	local dur = col("Duration(us)", "Task Duration(us)")
	local state = col("OP State")
	if ty and dur then
		s.form = "kernel_details"
		local dynamic, static = 0, 0
		prof.each_row(text, function(f)
			local t, us = f[ty], num(f[dur])
			if t and us then
				local c = core and trim(f[core] or "") or nil
				add(ops, trim(t), us, 1, nil, c)
				if is_comm(t, c) then s.comm_us = s.comm_us + us end
				local st = state and trim(f[state] or ""):lower()
				if st == "dynamic" then dynamic = dynamic + 1 elseif st == "static" then static = static + 1 end
			end
		end)
		s.dynamic = dynamic > 0 and static == 0
		return finish(s, ops)
	end
	local comp, nocomm, free = col("Computing"), col("Communication(Not Overlapped)"), col("Free")
	if comp and free then
		s.form = "step_trace_time"
		local dev = col("Device_id")
		local st = { compute_us = 0, comm_us = 0, free_us = 0, steps = 0 }
		local per = {}
		prof.each_row(text, function(f)
			local c, n, fr = num(f[comp]) or 0, nocomm and num(f[nocomm]) or 0, num(f[free]) or 0
			if num(f[comp]) then
				st.compute_us, st.comm_us, st.free_us = st.compute_us + c, st.comm_us + n, st.free_us + fr
				st.steps = st.steps + 1
				local d = dev and trim(f[dev] or "") or "0"
				local p = per[d] or { sum = 0, n = 0 }
				per[d] = p
				p.sum, p.n = p.sum + c + n + fr, p.n + 1
			end
		end)
		s.step = st
		s.devices = {}
		for d, p in pairs(per) do s.devices[d] = p.sum / p.n end
		return finish(s, ops)
	end
	return nil, "a CSV table ferry does not recognise (expected op_statistic.csv, kernel_details.csv or step_trace_time.csv)"
end

local OVERLAP = { Computing = "compute_us", ["Communication(Not Overlapped)"] = "comm_us", Free = "free_us" }

local function trace_summary(text, decode)
	if #text > prof.MAX_TRACE_BYTES then
		return nil, string.format("a trace of %.0f MB, too large to analyse inside a check "
			.. "(ingest kernel_details.csv, op_statistic.csv and step_trace_time.csv instead)", #text / 1048576)
	end
	local ok, doc = pcall(decode, text)
	if not ok or type(doc) ~= "table" then return nil, "a trace that is not valid JSON" end
	local events = doc.traceEvents or doc
	local s, ops = { form = "trace", comm_us = 0 }, {}
	local st = { compute_us = 0, comm_us = 0, free_us = 0, steps = 0 }
	local overlap = false
	for _, e in ipairs(events) do
		if type(e) == "table" and e.ph == "X" and type(e.dur) == "number" then
			local key = OVERLAP[e.name]
			local args = type(e.args) == "table" and e.args or {}
			if key then
				overlap = true
				st[key] = st[key] + e.dur
			elseif type(args["Task Type"]) == "string" and type(e.name) == "string" then
				add(ops, e.name, e.dur, 1, nil, args["Task Type"])
				if is_comm(e.name, args["Task Type"]) then s.comm_us = s.comm_us + e.dur end
			end
		end
	end
	if overlap then s.step = st end
	finish(s, ops)
	if #s.ops == 0 and not overlap then
		return nil, "a trace without device kernels (\"Task Type\") or overlap-analysis events"
	end
	return s
end

-- decode: a JSON decoder for traces (ctx.decode_json: a value, or nil and a reason).
function prof.summarize(text, decode)
	if not text or text == "" then return nil, "empty" end
	local head = text:match("^%s*(.)")
	if head == "[" or head == "{" then return trace_summary(text, decode) end
	return csv_summary(text)
end

return prof
