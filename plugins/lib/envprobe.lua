-- envprobe: shared helpers of the environment checks (plugins/environment/).
--   local ep = require("envprobe")
--   local probe, art, bad = ep.latest(ctx) newest ingested env-probe, decoded (nil, reason when none);
--                                          fields of the wrong type dropped and listed in bad
--   ep.decode(text)                        JSON text -> Lua value (JSON null becomes nil)
--   ep.vcmp(a, b)                          -1/0/1 for version strings ("2.1.0.post12", "8.0.RC3")
--   ep.torch_base("2.1.0+cpu")             "2.1.0"
--   ep.pins(ctx, name)                     requirement specs for a package in the project
--   ep.chip_memory_mb(chip)                device memory of one chip (HBM, else DDR)
--   ep.set_env_path(probe, ctx)            where set_env.sh is on that host (detected or standard)

local ep = {}

-- ---- JSON -------------------------------------------------------------------------

local escapes = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }

local function decode_error(pos, what)
	error("env-probe JSON: " .. what .. " at byte " .. pos, 0)
end

local decode_value

local function skip(s, i)
	local _, e = s:find("^[ \t\r\n]*", i)
	return e + 1
end

local function decode_string(s, i) -- s:sub(i, i) == '"'
	local out, j = {}, i + 1
	while true do
		local k = s:find('["\\]', j)
		if not k then decode_error(i, "unterminated string") end
		out[#out + 1] = s:sub(j, k - 1)
		if s:sub(k, k) == '"' then return table.concat(out), k + 1 end
		local c = s:sub(k + 1, k + 1)
		if c == "u" then
			local hex = s:sub(k + 2, k + 5)
			if not hex:match("^%x%x%x%x$") then decode_error(k, "bad \\u escape") end
			local cp = tonumber(hex, 16)
			j = k + 6
			if cp >= 0xD800 and cp <= 0xDBFF and s:sub(j, j + 1) == "\\u" then
				local lo = tonumber(s:sub(j + 2, j + 5), 16)
				if lo and lo >= 0xDC00 and lo <= 0xDFFF then
					cp = 0x10000 + (cp - 0xD800) * 0x400 + (lo - 0xDC00)
					j = j + 6
				end
			end
			if cp >= 0xD800 and cp <= 0xDFFF then cp = 0xFFFD end
			out[#out + 1] = utf8.char(cp)
		elseif escapes[c] then
			out[#out + 1] = escapes[c]
			j = k + 2
		else
			decode_error(k, "bad escape")
		end
	end
end

decode_value = function(s, i, depth)
	if depth > 64 then decode_error(i, "nesting too deep") end
	i = skip(s, i)
	local c = s:sub(i, i)
	if c == "{" then
		local obj = {}
		i = skip(s, i + 1)
		if s:sub(i, i) == "}" then return obj, i + 1 end
		while true do
			i = skip(s, i)
			if s:sub(i, i) ~= '"' then decode_error(i, "expected a key") end
			local key
			key, i = decode_string(s, i)
			i = skip(s, i)
			if s:sub(i, i) ~= ":" then decode_error(i, "expected ':'") end
			local v
			v, i = decode_value(s, i + 1, depth + 1)
			obj[key] = v
			i = skip(s, i)
			c = s:sub(i, i)
			if c == "}" then return obj, i + 1 end
			if c ~= "," then decode_error(i, "expected ',' or '}'") end
			i = i + 1
		end
	elseif c == "[" then
		local arr, n = {}, 0
		i = skip(s, i + 1)
		if s:sub(i, i) == "]" then return arr, i + 1 end
		while true do
			local v
			v, i = decode_value(s, i, depth + 1)
			n = n + 1
			arr[n] = v
			i = skip(s, i)
			c = s:sub(i, i)
			if c == "]" then return arr, i + 1 end
			if c ~= "," then decode_error(i, "expected ',' or ']'") end
			i = i + 1
		end
	elseif c == '"' then
		return decode_string(s, i)
	elseif s:find("^true", i) then
		return true, i + 4
	elseif s:find("^false", i) then
		return false, i + 5
	elseif s:find("^null", i) then
		return nil, i + 4
	else
		local num = s:match("^-?%d+%.?%d*[eE]?[-+]?%d*", i)
		if not num or num == "" or not tonumber(num) then decode_error(i, "unexpected character") end
		return tonumber(num), i + #num
	end
end

function ep.decode(text)
	local v, i = decode_value(text, 1, 0)
	i = skip(text, i)
	if i <= #text then decode_error(i, "trailing data") end
	return v
end

-- ---- the newest probe ----------------------------------------------------------

local shape = require("shape")

-- What the probe script writes (app/probe.sh), as the checks read it.
local S, N, B = "string", "number", "boolean"
local PROBE_SHAPE = {
	schema = S, collected_at = S,
	probe = { version = N, uid = N, elapsed_s = N },
	host = {
		hostname = S, kernel = S, arch = S, container = B, mem_total_kb = N,
		os = { id = S, version_id = S, pretty_name = S }, cpu = { model = S, count = N },
		disk_free_kb = { map = N },
	},
	python = { executable = S, implementation = S, version = S, prefix = S, virtualenv = B, packages = { map = S } },
	cann = {
		set_env_sourced = B,
		toolkit = { version = S, path = S, real_path = S, info_file = S, set_env = S },
		kernels = { version = S, path = S }, nnal = { version = S, set_env = S },
	},
	driver = { version = S, version_file = S, npu_smi_version = S, firmware = S, install_info = S },
	npu = {
		npu_smi_available = B, npu_smi_path = S, npu_smi_status = N, npu_smi_version = S, raw = S,
		control_devices = { map = B }, devices = { list = S },
		chips = { list = {
			id = N, chip = N, phy_id = N, device_id = N, name = S, health = S, bus_id = S, power_w = N, temp_c = N,
			aicore_pct = N, hugepages_used = N, hugepages_total = N, memory_used_mb = N, memory_total_mb = N,
			hbm_used_mb = N, hbm_total_mb = N,
		} },
	},
	env = { map = S },
	missing = { list = S },
}

-- Returns the decoded newest env-probe, its artifact row and the fields dropped for having
-- the wrong type ("npu.chips[1].bus_id: expected a string, found a table"), or nil and a
-- reason ("none" when nothing was ingested).
function ep.latest(ctx)
	local arts = ctx.artifacts("env-probe")
	local newest
	for _, a in ipairs(arts) do
		if not newest or tonumber(a.id) > tonumber(newest.id) then newest = a end
	end
	if not newest then return nil, "none" end
	local text, why = ctx.read_artifact(newest.id)
	if not text then return nil, why, newest end
	local ok, doc = pcall(ep.decode, text)
	if not ok then return nil, doc, newest end
	if type(doc) ~= "table" then return nil, "not a JSON object", newest end
	-- a field of the wrong type is dropped (environment.probe names it), never met by a
	-- check as a crash
	local problems = shape.clean(doc, PROBE_SHAPE)
	for _, k in ipairs({ "host", "python", "cann", "driver", "npu", "env" }) do
		if type(doc[k]) ~= "table" then doc[k] = {} end
	end
	if type(doc.npu.chips) ~= "table" then doc.npu.chips = {} end
	if type(doc.npu.devices) ~= "table" then doc.npu.devices = {} end
	if type(doc.python.packages) ~= "table" then doc.python.packages = {} end
	if type(doc.cann.toolkit) ~= "table" then doc.cann.toolkit = {} end
	return doc, newest, problems
end

-- A one-line description of the probed host, for messages.
function ep.host_label(probe)
	local h = probe.host or {}
	local name = h.hostname or "the probed host"
	return name .. (probe.collected_at and (" (probed " .. probe.collected_at .. ")") or "")
end

-- ---- versions ------------------------------------------------------------------

-- "2.1.0.post12" -> {2,1,0,0,12}; "8.0.RC3" -> {8,0,-100+3}; "2.1.0+cpu" ignores the local part.
local function vkey(v)
	local t = {}
	v = tostring(v or ""):gsub("%+.*$", "")
	for part in v:gmatch("[^%.%-]+") do
		local n = tonumber(part)
		if n then
			t[#t + 1] = n
		else
			local word, num = part:lower():match("^(%a+)(%d*)$")
			num = tonumber(num) or 0
			if word == "rc" or word == "alpha" or word == "beta" or word == "a" or word == "b" then
				t[#t + 1] = -100 + num
			elseif word == "post" then
				t[#t + 1] = 0
				t[#t + 1] = num
			else
				local lead = tonumber(part:match("^%d+"))
				if lead then t[#t + 1] = lead end
			end
		end
	end
	return t
end

function ep.vcmp(a, b)
	local x, y = vkey(a), vkey(b)
	for i = 1, math.max(#x, #y) do
		local p, q = x[i] or 0, y[i] or 0
		if p ~= q then return p < q and -1 or 1 end
	end
	return 0
end

function ep.torch_base(v)
	if not v then return nil end
	return (tostring(v):gsub("%+.*$", ""))
end

-- "8.1.RC1" and "CANN 8.1.RC1" compare equal; case-insensitive.
function ep.same_cann(a, b)
	if not a or not b then return false end
	local function norm(s) return tostring(s):gsub("^[Cc][Aa][Nn][Nn]%s*", ""):upper() end
	return norm(a) == norm(b)
end

-- ---- project pins --------------------------------------------------------------

-- Requirement specs of package name in requirements*.txt, setup.py, setup.cfg and
-- pyproject.toml: list of {file=, line=, col=, text=, op=, version=}.
function ep.pins(ctx, name)
	local out = {}
	local pat = name:gsub("[_%-]", "[_%%-]")
	for _, path in ipairs(ctx.files()) do
		local base = path:match("[^/]*$")
		if base:match("^requirements.*%.txt$") or base:match("^requirements.*%.in$") or base == "pyproject.toml"
			or base == "setup.py" or base == "setup.cfg" or base == "environment.yml" then
			for i, l in ipairs(ctx.lines(path) or {}) do
				local code = l:gsub("%s#.*$", "")
				if not code:match("^%s*#") then
					for s, spec, op, v in code:gmatch("()(" .. pat .. "%s*([=<>~!]=?=?)%s*(%d[%w%.%+]*))") do
						local before = s > 1 and code:sub(s - 1, s - 1) or ""
						if not before:match("[%w_%-%.]") then
							out[#out + 1] = { file = path, line = i, col = s, text = spec, op = op, version = v }
						end
					end
				end
			end
		end
	end
	return out
end

-- ---- devices and paths -----------------------------------------------------------

function ep.chip_memory_mb(chip)
	if type(chip.hbm_total_mb) == "number" and chip.hbm_total_mb > 0 then return chip.hbm_total_mb end
	if type(chip.memory_total_mb) == "number" and chip.memory_total_mb > 0 then return chip.memory_total_mb end
	return nil
end

-- set_env.sh of the probed host: the one the probe found, else the standard path of the
-- detected layout from env_paths.json, else the classic default.
function ep.set_env_path(probe, ctx)
	local tk = (probe and probe.cann and probe.cann.toolkit) or {}
	if tk.set_env then return tk.set_env, "detected on the host" end
	local paths = ctx.data("env_paths")
	local want = "toolkit_set_env"
	if tk.version and ep.vcmp(tk.version, "8.5.0") >= 0 then want = "cann_set_env" end
	for _, e in ipairs(paths.entries) do
		if e.name == want then return e.path, e.source end
	end
	return "/usr/local/Ascend/ascend-toolkit/set_env.sh", "default root install"
end

-- Numeric engagement setting, or nil.
function ep.config_number(ctx, key)
	local v = ctx.config(key)
	return v and tonumber(v) or nil
end

return ep
