-- environment.versions: the host's Python / torch / torch_npu / CANN combination against the matrix.

local ep = require("envprobe")
local tvops = require("tvops")
local words = require("words")

local CPU_WHEEL = "https://download.pytorch.org/whl/cpu"

local function minor(v) return v and v:match("^(%d+%.%d+)") or nil end

local function clean_npu(v) return v and (v:gsub("%s*%(.*%)%s*$", "")) or nil end

local function has(list, x)
	for _i, v in ipairs(list or {}) do if v == x then return true end end
	return false
end

-- major.minor of a version ("9.1.0" -> "9.1", "CANN 8.5.X" -> "8.5")
local function line_of(v) return v and tostring(v):gsub("^[Cc][Aa][Nn][Nn]%s*", ""):match("^(%d+%.%d+)") or nil end

-- TorchNPU lines and the CANN lines the release notes mark compatible with them
-- (version_matrix.json "compatibility"); set by run.
local COMPAT = {}

-- Whether row runs on CANN cann: the row's own CANN (a "9.1.X" row takes any 9.1), or a
-- CANN line the release notes mark compatible with the row's TorchNPU line.
local function fits(row, cann)
	if not cann then return false end
	if ep.same_cann(row.cann, cann) then return true end
	if tostring(row.cann):match("%.[Xx]$") and line_of(row.cann) == line_of(cann) then return true end
	local tn = line_of(row.torchnpu or (row.branch or ""):match("%-([%d%.]+)$"))
	return tn ~= nil and COMPAT[tn] ~= nil and COMPAT[tn][line_of(cann)] == true
end

local function install_line(row)
	return "pip install torch==" .. row.torch .. " --index-url " .. CPU_WHEEL .. " && pip install torch-npu==" .. clean_npu(row.torch_npu)
end

-- The matrix row nearest to the host: fewest and cheapest changes. Changing CANN (a system
-- install) costs most, then Python, then torch (the project's dependency), then torch_npu.
local function nearest(rows, h)
	local best, best_cost
	for _i, r in ipairs(rows) do
		local cost = 0
		if h.cann and not fits(r, h.cann) then cost = cost + 8 end
		if h.py and r.python and not has(r.python, h.py) then cost = cost + 4 end
		local t = h.torch or h.pin
		if t and r.torch ~= t then cost = cost + 2 end
		if h.npu and ep.vcmp(clean_npu(r.torch_npu), h.npu) ~= 0 then cost = cost + 1 end
		if r.status ~= "active" then cost = cost + 0.5 end
		-- an operator the project needs the Torchvision Adapter for fails on any other torch
		if h.adapter and not h.adapter(r.torch) then cost = cost + 16 end
		if not best or cost < best_cost
			or (cost == best_cost and ep.vcmp(clean_npu(r.torch_npu), clean_npu(best.torch_npu)) > 0) then
			best, best_cost = r, cost
		end
	end
	return best
end

-- What to change on the host to reach row.
local function changes(row, h)
	local out = {}
	if h.cann and not fits(row, h.cann) then
		out[#out + 1] = _("install CANN {want} (host has {have})", { want = row.cann, have = h.cann })
	elseif not h.cann then
		out[#out + 1] = _("install CANN {want}", { want = row.cann })
	end
	if h.py and row.python and not has(row.python, h.py) then
		out[#out + 1] = _("use Python {want} (host has {have})", { want = table.concat(row.python, "/"), have = h.py })
	end
	if h.torch ~= row.torch then
		out[#out + 1] = h.torch and _("install the CPU wheel of torch {want} (host has {have})", { want = row.torch, have = h.torch })
			or _("install the CPU wheel of torch {want}", { want = row.torch })
	end
	if not h.npu or ep.vcmp(clean_npu(row.torch_npu), h.npu) ~= 0 then
		out[#out + 1] = h.npu and _("install torch_npu {want} (host has {have})", { want = clean_npu(row.torch_npu), have = h.npu })
			or _("install torch_npu {want}", { want = clean_npu(row.torch_npu) })
	end
	return words.join(out, ";")
end

-- A row of the version matrix in words: "torch 2.1.0 + torch_npu 2.1.0.post3 + CANN 8.0.0
-- (Python 3.8, 3.9)", marked when the row has reached its end of life.
local function describe(row)
	local combo = "torch " .. row.torch .. " + torch_npu " .. clean_npu(row.torch_npu) .. " + CANN " .. row.cann
	if row.python then
		combo = _("{combination} (Python {versions})", { combination = combo, versions = table.concat(row.python, ", ") })
	end
	if row.status ~= "active" then return _("{combination}, end of life", { combination = combo }) end
	return combo
end

return {
	id = "environment.versions",
	phase = "environment",
	evidence = { "env-probe" },
	title = _("Python, torch, torch_npu and CANN versions against the compatibility matrix"),
	severity = "error",
	category = "versions",
	description = _("Takes the Python, torch, torch_npu and CANN toolkit versions from the newest "
		.. "environment probe and looks the combination up in version_matrix.json (the vendor's "
		.. "torch_npu compatibility table). torch_npu is built for one PyTorch version and one CANN "
		.. "release; any other combination fails at import or at the first operator. When the "
		.. "combination is not listed, the nearest listed one is named with the changes that reach it."),
	run = function(ctx)
		local p = ep.latest(ctx)
		if not p then return end
		local matrix = ctx.data("version_matrix")
		local rows = matrix.entries
		COMPAT = {}
		for _i, c in ipairs(matrix.compatibility or {}) do
			COMPAT[c.torchnpu] = {}
			for _i, l in ipairs(c.cann) do COMPAT[c.torchnpu][l] = true end
		end
		local pk = p.python.packages
		local h = {
			py = minor(p.python.version),
			torch = ep.torch_base(pk.torch),
			npu = pk.torch_npu and ep.torch_base(pk.torch_npu) or nil,
			cann = p.cann.toolkit.version,
		}
		if not h.torch then
			-- nothing installed yet: aim at the project's own pin
			for _i, s in ipairs(ep.pins(ctx, "torch")) do
				if s.op == "==" then h.pin = ep.torch_base(s.version) break end
			end
		end
		local use = tvops.adapter_use(ctx)
		if use then h.adapter = function(torch) return tvops.adapter_for(ctx, torch) ~= nil end end
		local where = _("in {python} on {host}", { python = p.python.executable or _("the host's Python"), host = ep.host_label(p) })

		if not p.python.version then
			local r = nearest(rows, h)
			ctx.report{
				key = "python",
				message = _("No Python interpreter answered on {host}.", { host = ep.host_label(p) }),
				suggestion = r and _("Install Python {python} on the host (or activate the environment the job will use) and "
						.. "run the probe again from it. For CANN {cann} the matrix pairs {combination}.",
						{ python = r.python and table.concat(r.python, "/") or "3.10", cann = h.cann or r.cann, combination = describe(r) })
					or _("Install Python 3.10 on the host (or activate the environment the job will use) and run the probe "
						.. "again from it."),
			}
			return
		end
		if pk.torch and tostring(pk.torch):match("%+cu") then
			ctx.report{
				key = "cuda-wheel",
				severity = "warning",
				message = _("torch {version} {where} is a CUDA build.", { version = pk.torch, where = where }),
				suggestion = _("Replace it with the CPU wheel of the same version (`pip install torch=={version} --index-url "
					.. "{index}`); torch_npu is installed on top of the CPU build.", { version = h.torch, index = CPU_WHEEL }),
			}
		end
		local r = nearest(rows, h)
		if use and h.torch and not h.adapter(h.torch) then
			local a = { torch = h.torch, where = where, op = use.text, site = use.path .. ":" .. use.line,
				adapter = tvops.adapter_torches_text(ctx) }
			local fit = r and h.adapter(r.torch) and r
			if fit then a.combination, a.changes = describe(fit), changes(fit, h) end
			ctx.report{
				key = "torchvision-adapter",
				severity = "warning",
				message = _("torch {torch} {where} has no Torchvision Adapter build (it is built for torch {adapter}), and "
					.. "`{op}` ({site}) runs on NPU tensors only through the adapter.", a),
				suggestion = fit and _("The nearest combination the adapter is built for is {combination}: {changes}; then "
						.. "install the torchvision and torchvision_npu of that torch (torchvision_npu.json).", a)
					or _("Run the operator on the CPU (its inputs moved with `.cpu()` and the result back): no combination "
						.. "of the matrix has an adapter build."),
			}
		end
		if not h.torch or not h.npu then
			local message
			if h.torch then
				message = _("torch_npu is not installed {where}.", { where = where })
			elseif h.npu then
				message = _("torch is not installed {where}.", { where = where })
			else
				message = _("torch and torch_npu are not installed {where}.", { where = where })
			end
			ctx.report{
				key = "missing",
				message = message,
				suggestion = r and _("Install {combination}: {changes}. Commands: `{commands}`.",
						{ combination = describe(r), changes = changes(r, h), commands = install_line(r) })
					or _("Install torch (CPU wheel) and torch_npu."),
			}
			return
		end
		-- exact rows for the installed torch + torch_npu
		local exact
		for _i, row in ipairs(rows) do
			if row.torch == h.torch and ep.vcmp(clean_npu(row.torch_npu), h.npu) == 0
				and (not h.cann or fits(row, h.cann)) then
				-- prefer an active row, then the row made for this very CANN
				if not exact or (row.status == "active" and exact.status ~= "active")
					or (row.status == exact.status and ep.same_cann(row.cann, h.cann) and not ep.same_cann(exact.cann, h.cann)) then
					exact = row
				end
			end
		end
		local combo = "torch " .. h.torch .. " + torch_npu " .. h.npu .. (h.cann and (" + CANN " .. h.cann) or "")
			.. " + Python " .. (h.py or p.python.version)
		if not exact then
			ctx.report{
				key = "combination",
				message = _("{combination} {where} is not a combination in the torch_npu compatibility matrix.",
					{ combination = combo, where = where }),
				suggestion = r and _("The nearest supported combination is {combination}: {changes}. Commands for the Python "
						.. "side: `{commands}`.", { combination = describe(r), changes = changes(r, h), commands = install_line(r) })
					or _("Pick a row of version_matrix.json and install it."),
				data = { nearest = r and r.branch },
			}
			return
		end
		if exact.python and not has(exact.python, h.py) then
			-- a version that does not read as X.Y is shown as the probe wrote it
			ctx.report{
				key = "python",
				severity = "warning",
				message = _("Python {python} is not listed for PyTorch {torch} (supported: {supported}) {where}.",
					{ python = h.py or p.python.version, torch = h.torch, supported = table.concat(exact.python, ", "), where = where }),
				suggestion = _("Create the environment with Python {python} (e.g. a venv or conda environment) and reinstall "
					.. "torch {torch} and torch_npu {npu} in it.", { python = exact.python[#exact.python], torch = h.torch, npu = h.npu }),
			}
			return
		end
		if exact.status ~= "active" then
			local act = {}
			for _i, row in ipairs(rows) do if row.status == "active" then act[#act + 1] = row end end
			local a = nearest(act, h)
			ctx.report{
				key = "combination",
				severity = "warning",
				message = _("{combination} {where} is listed but end of life (branch {branch}): no more fixes.",
					{ combination = combo, where = where, branch = exact.branch }),
				suggestion = a and _("Plan a move to a maintained combination; the nearest is {combination}: {changes}.",
						{ combination = describe(a), changes = changes(a, h) })
					or _("Plan a move to a maintained combination."),
			}
			return
		end
		ctx.report{
			key = "combination",
			severity = "info",
			message = (h.cann and not ep.same_cann(exact.cann, h.cann))
				and _("{combination} {where} is a supported combination (branch {branch}, built for CANN {built}; the release "
					.. "notes mark CANN {line}.X compatible).",
					{ combination = combo, where = where, branch = exact.branch, built = exact.cann, line = line_of(h.cann) })
				or _("{combination} {where} is a supported combination (branch {branch}).",
					{ combination = combo, where = where, branch = exact.branch }),
			suggestion = (use and not h.adapter(h.torch))
				and _("torch_npu runs on it, but the project's torchvision operators do not: settle the Torchvision Adapter "
					.. "finding before pinning torch.")
				or _("Keep the project's requirements pinned to torch {torch} and torch_npu {npu} so every host gets the "
					.. "same versions.", { torch = h.torch, npu = h.npu }),
		}
	end,
}
