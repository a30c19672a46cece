-- envprobe: shared helpers of the environment checks (plugins/environment/).
--   local ep = require("envprobe")
--   local probe, art = ep.latest(ctx)      newest ingested env-probe, decoded (nil, reason when none);
--                                          values of the wrong type dropped, named in probe.bad_fields
--   ep.vcmp(a, b)                          -1/0/1 for version strings ("2.1.0.post12", "8.0.RC3")
--   ep.satisfies(v, op, want)              whether version v meets the requirement "op want" (==, >=, ~= ...)
--   ep.torch_base("2.1.0+cpu")             "2.1.0"
--   ep.pins(ctx, name)                     requirement specs for a package in the project
--   ep.torch_pins(ctx)                     the project's torch specs, its own (shallowest) files first
--   ep.pin_depth(spec)                     how many folders deep the spec's file is
--   ep.chip_memory_mb(chip)                device memory of one chip (HBM, else DDR)
--   ep.set_env_path(probe, ctx)            where set_env.sh is on that host (detected or standard)
--   ep.package(ctx, name)                  the cann_packages.json entry of a package or tool

local shape = require("shape")

local ep = {}

-- ---- the probe's shape -----------------------------------------------------------

-- What app/probe.sh writes (the notation of plugins/lib/shape.lua). A value of another
-- type is dropped (as if the probe had not seen it) and named in probe.bad_fields, so no
-- check reads a table where it expects text or a number that is not finite.
local S, N, I, B = shape.TEXT, shape.NUMBER, shape.INTEGER, shape.BOOLEAN
local SHAPE = {
	schema = S, collected_at = S, error = S,
	probe = { ["*"] = N },
	host = {
		os = { id = S, version_id = S, pretty_name = S },
		kernel = S, arch = S, hostname = S, cpu = { model = S, count = I }, mem_total_kb = I,
		disk_free_kb = { ["*"] = I }, container = B,
	},
	python = {
		executable = S, implementation = S, version = S, prefix = S, virtualenv = B, error = S,
		packages = { ["*"] = S },
	},
	cann = {
		toolkit = { version = S, path = S, real_path = S, info_file = S, set_env = S },
		kernels = { version = S, path = S }, nnal = { version = S, set_env = S }, set_env_sourced = B,
		tools = { ["*"] = { path = S, on_path = B } },
	},
	driver = { version = S, version_file = S, npu_smi_version = S, firmware = S, firmware_compatible = S,
		package_version = S, firmware_package_version = S, install_info = S },
	npu = {
		npu_smi_available = B, npu_smi_path = S, npu_smi_status = I, npu_smi_version = S, raw = S,
		chips = { {
			id = I, chip = I, phy_id = I, device_id = I, name = S, health = S, power_w = N, temp_c = N,
			hugepages_used = I, hugepages_total = I, bus_id = S, aicore_pct = N, memory_used_mb = I,
			memory_total_mb = I, hbm_used_mb = I, hbm_total_mb = I,
		} },
		devices = { S },
		control_devices = { ["*"] = B },
	},
	env = { ["*"] = S },
	missing = { S },
	smoke = {
		ran = B, ok = B, step = S, error = S, npu_available = B, device_count = I,
		versions = { ["*"] = S }, tests = { { name = S, max_rel_err = N, seconds = N, ok = B } },
	},
}

-- ---- the newest probe ----------------------------------------------------------

-- Returns the decoded newest env-probe and its artifact row, or nil and a reason
-- ("none" when nothing was ingested).
function ep.latest(ctx)
	local arts = ctx.artifacts("env-probe")
	local newest
	for _i, a in ipairs(arts) do
		if not newest or tonumber(a.id) > tonumber(newest.id) then newest = a end
	end
	if not newest then return nil, "none" end
	local text, why = ctx.read_artifact(newest.id)
	if not text then return nil, why, newest end
	local doc, bad = ctx.decode_json(text)
	if bad then return nil, "env-probe JSON: " .. bad, newest end
	if type(doc) ~= "table" then return nil, "not a JSON object", newest end
	doc.bad_fields = shape.conform(doc, SHAPE)
	for _i, k in ipairs({ "host", "python", "cann", "driver", "npu", "env" }) do
		if type(doc[k]) ~= "table" then doc[k] = {} end
	end
	if type(doc.npu.chips) ~= "table" then doc.npu.chips = {} end
	if type(doc.npu.devices) ~= "table" then doc.npu.devices = {} end
	if type(doc.python.packages) ~= "table" then doc.python.packages = {} end
	if type(doc.cann.toolkit) ~= "table" then doc.cann.toolkit = {} end
	-- A package the probe asked for and did not find is JSON null, which decodes to an
	-- absent field, like one an older probe never asked for: the names its packages
	-- object holds, read from the text, tell the two apart (ep.asked).
	doc.python.asked = {}
	local packages = text:match('"packages"%s*:%s*(%b{})')
	for name in (packages or ""):gmatch('"([^"\\]+)"%s*:') do doc.python.asked[name] = true end
	return doc, newest
end

-- Whether the probe (from ep.latest) asked for the Python package name.
function ep.asked(probe, name)
	return probe.python.asked[name] == true
end

-- A one-line description of the probed host, for messages.
function ep.host_label(probe)
	local h = probe.host or {}
	local name = h.hostname or _("the probed host")
	if not probe.collected_at then return name end
	return _("{host} (probed {at})", { host = name, at = probe.collected_at })
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

-- Does version v satisfy "op want"?
function ep.satisfies(v, op, want)
	local c = ep.vcmp(v, want)
	if op == "==" or op == "===" then
		return c == 0 or (not want:find("%+") and ep.vcmp(ep.torch_base(v), want) == 0)
	elseif op == "!=" then return c ~= 0
	elseif op == ">=" then return c >= 0
	elseif op == "<=" then return c <= 0
	elseif op == ">" then return c > 0
	elseif op == "<" then return c < 0
	elseif op == "~=" then
		-- compatible release: >= want and same prefix without the last component
		local prefix = want:match("^(.*)%.[^%.]+$") or want
		return c >= 0 and ep.vcmp(v:sub(1, #prefix), prefix) == 0
	end
	return true
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
	for _i, path in ipairs(ctx.files()) do
		local base = path:match("[^/]*$")
		if base:match("^requirements.*%.txt$") or base:match("^requirements.*%.in$") or base == "pyproject.toml"
			or base == "setup.py" or base == "setup.cfg" or base == "environment.yml" then
			for i, l in ipairs(ctx.lines(path) or {}) do
				-- extras (`megatron-core[mlm]==0.12.1`) are not part of the version spec
				local code = l:gsub("%s#.*$", ""):gsub("(" .. pat .. ")%[[^%]]*%]", "%1")
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

-- The project's torch requirements, the shallowest file first (the project's own
-- requirements before an example's), then by path and line.
function ep.pin_depth(p) return select(2, p.file:gsub("/", "")) end

function ep.torch_pins(ctx)
	local pins = ep.pins(ctx, "torch")
	local depth = ep.pin_depth
	table.sort(pins, function(a, b)
		if depth(a) ~= depth(b) then return depth(a) < depth(b) end
		if a.file ~= b.file then return a.file < b.file end
		return a.line < b.line
	end)
	return pins
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
	for _i, e in ipairs(paths.entries) do
		if e.name == want then return e.path, e.source end
	end
	return "/usr/local/Ascend/ascend-toolkit/set_env.sh", "default root install"
end

-- Numeric engagement setting, or nil.
-- The plugins/data/cann_packages.json entry of a package or tool (kernels, nnal, firmware,
-- atc, msprof, aoe).
function ep.package(ctx, name)
	for _i, e in ipairs(ctx.data("cann_packages").entries) do
		if e.name == name then return e end
	end
	error("cann_packages.json has no entry " .. name)
end

function ep.config_number(ctx, key)
	local v = ctx.config(key)
	return v and tonumber(v) or nil
end

return ep
