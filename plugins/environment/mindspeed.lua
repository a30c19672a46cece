-- environment.mindspeed: the MindSpeed release a Megatron-LM project needs on the host.
--
-- On Ascend a Megatron project runs through MindSpeed (`import mindspeed.megatron_adaptor`),
-- and each MindSpeed release or branch is made for one Megatron core version
-- (plugins/data/mindspeed_versions.json: MindSpeed's version table, and the migration
-- guide's 2.0.0_core_r0.8.0 with core_r0.8.0). The project's Megatron core version comes
-- from its own copy (megatron/core/package_info.py: MAJOR, MINOR, PATCH), else from a
-- megatron-core requirement, else from the probed host's megatron_core package. The
-- check names the MindSpeed to install with the guide's commands, says when no MindSpeed
-- pairs with that Megatron, and, with a probe, reports MindSpeed missing on the host and a
-- torch or Python the paired releases were not made for.

local cuda = require("cuda")
local ep = require("envprobe")

-- "0.8.0" from a package_info.py's MAJOR, MINOR and PATCH lines, or nil.
local function package_info_version(text)
	local parts = {}
	for _i, k in ipairs({ "MAJOR", "MINOR", "PATCH" }) do
		local v = text:match("\n%s*" .. k .. "%s*=%s*(%d+)") or text:match("^%s*" .. k .. "%s*=%s*(%d+)")
		if not v then return nil end
		parts[#parts + 1] = v
	end
	return table.concat(parts, ".")
end

-- The project's Megatron core version and where it was read, or nil.
local function megatron_core(ctx, probe)
	local best
	for _i, path in ipairs(ctx.files("megatron/core/package_info%.py$")) do
		if not best or #path < #best then best = path end
	end
	local v = best and package_info_version(ctx.read(best) or "")
	if v then return v, best end
	-- an exact or a compatible-release pin names the minor version; a range does not
	for _i, s in ipairs(ep.pins(ctx, "megatron-core")) do
		if s.op == "==" or s.op == "~=" then return s.version, string.format("%s:%d", s.file, s.line) end
	end
	local pk = probe and probe.python.packages or {}
	if pk.megatron_core then
		return tostring(pk.megatron_core), _("the megatron_core package on {host}", { host = ep.host_label(probe) })
	end
end

-- Major.minor of a version: a MindSpeed branch follows a Megatron core release branch,
-- whose patch releases it takes too (core_r0.12.0's tip reports 0.12.4).
local function core_of(v)
	local a, b = tostring(v):match("^(%d+)%.(%d+)")
	if not a then return nil end
	return string.format("%d.%d", tonumber(a), tonumber(b))
end

local function branches(rows)
	local out = {}
	for _i, r in ipairs(rows) do out[#out + 1] = r.branch end
	return table.concat(out, ", ")
end

return {
	id = "environment.mindspeed",
	phase = "environment",
	evidence = { "env-probe" },
	title = _("MindSpeed for the project's Megatron-LM"),
	severity = "warning",
	category = "versions",
	description = _("In a Megatron-LM project: reads the project's Megatron core version (its megatron/core/package_info.py, "
		.. "a megatron-core requirement, or the probed host's package) and names the MindSpeed release made for it "
		.. "(MindSpeed's version table), with the install commands of the migration guide; says when no MindSpeed "
		.. "pairs with it. With an environment probe: MindSpeed missing on the host is an error, and a torch or "
		.. "Python the paired releases were not made for is a warning."),
	run = function(ctx)
		local mg = cuda.megatron(ctx)
		if not mg then return end
		local probe = ep.latest(ctx)
		local data = ctx.data("mindspeed_versions")
		local core, where = megatron_core(ctx, probe)
		local paired, by_core, cores = {}, {}, {}
		for _i, r in ipairs(data.entries) do
			if core and core_of(core) == core_of(r.megatron_core) then paired[#paired + 1] = r end
			if not by_core[r.megatron_core] then
				by_core[r.megatron_core] = {}
				cores[#cores + 1] = r.megatron_core
			end
			table.insert(by_core[r.megatron_core], r.branch)
		end
		-- "core 0.12.0: master; core 0.9.0: core_r0.9.0; …", newest Megatron first
		table.sort(cores, function(a, b) return ep.vcmp(a, b) > 0 end)
		local known = {}
		for _i, c in ipairs(cores) do
			known[#known + 1] = string.format("core %s: %s", c, table.concat(by_core[c], ", "))
		end
		if not core then
			ctx.report{
				key = "core-unknown", severity = "info",
				message = _("This Megatron-LM project's core version could not be read (no megatron/core/package_info.py, megatron-core requirement or probed package), so the MindSpeed to install is not known: each MindSpeed release is made for one Megatron core version."),
				suggestion = _("Find the Megatron-LM commit or release the project is built on, then install the MindSpeed branch made for it (MindSpeed's version table: {pairs}).", { pairs = table.concat(known, "; ") }),
			}
		elseif #paired == 0 then
			ctx.report{
				key = "core-unpaired:" .. core,
				message = _("No MindSpeed release is made for Megatron core {core} ({where}): MindSpeed's version table pairs each release with one Megatron core version ({pairs}).",
					{ core = core, where = where, pairs = table.concat(known, "; ") }),
				suggestion = _("Move the project to a Megatron core version MindSpeed supports (the migration guide uses Megatron core_r0.8.0 with MindSpeed 2.0.0_core_r0.8.0), or check MindSpeed's current version table for a newer pairing before the environment is built."),
			}
		else
			local best = paired[1]
			local commands = {}
			for _i, c in ipairs(data.install.commands) do commands[#commands + 1] = (c:gsub("{branch}", best.branch)) end
			local notes = {}
			if best.maintenance_ends then
				notes[#notes + 1] = _("MindSpeed's maintenance table gives {branch} no more maintenance from {date}", { branch = best.branch, date = best.maintenance_ends })
			end
			if best.why then notes[#notes + 1] = _(best.why) end
			ctx.report{
				key = "core-paired:" .. core, severity = "info",
				message = #notes > 0
					and _("Megatron core {core} ({where}) is paired with MindSpeed {branches}; install {branch} ({notes}).",
						{ core = core, where = where, branches = branches(paired), branch = best.branch, notes = table.concat(notes, "; ") })
					or _("Megatron core {core} ({where}) is paired with MindSpeed {branches}; install {branch}.",
						{ core = core, where = where, branches = branches(paired), branch = best.branch }),
				suggestion = _("Install it on every node (an older MindSpeed uninstalled first), then add `{adaptor}` if adapt has not: {commands}",
					{ adaptor = mg.adaptor.name, commands = table.concat(commands, " && ") }),
			}
		end
		if not probe then return end
		local host, pk = ep.host_label(probe), probe.python.packages
		if not pk.mindspeed and ep.asked(probe, "mindspeed") then
			ctx.report{
				key = "missing",
				severity = "error",
				message = mg.mindspeed
					and _("MindSpeed is not installed on {host}, but the project imports it: the entry scripts stop at `import mindspeed.megatron_adaptor`.", { host = host })
					or _("MindSpeed is not installed on {host}: without it Megatron-LM does not run on the NPU (the adaptor patches Megatron for Ascend and keeps its NCCL launch settings working).", { host = host }),
				suggestion = #paired > 0 and _("Install MindSpeed {branch} on the host (see the finding above for the commands) and probe again.", { branch = paired[1].branch })
					or _("Install the MindSpeed made for the project's Megatron core version and probe again."),
			}
		end
		-- the first paired row that states a torch, and one that states Python versions
		local with_torch, with_python
		for _i, r in ipairs(paired) do
			with_torch = with_torch or (r.torch and r)
			with_python = with_python or (r.python and r)
		end
		if with_torch and pk.torch and ep.torch_base(with_torch.torch) ~= ep.torch_base(pk.torch) then
			local r = with_torch
			ctx.report{
				key = "torch:" .. r.branch,
				message = _("MindSpeed's version table gives PyTorch {want} for Megatron core {core} ({branch}), but {host} has torch {have}.", { core = core_of(core), branch = r.branch, want = r.torch, host = host, have = pk.torch }),
				suggestion = _("Install torch {want} with its torch_npu on the host for this pair; the table pairs no other PyTorch with these MindSpeed branches.", { want = r.torch }),
			}
		end
		local minor = probe.python.version and tostring(probe.python.version):match("^(%d+%.%d+)")
		if with_python and minor then
			local r, fits = with_python, false
			for _i, v in ipairs(r.python) do fits = fits or v == minor end
			if not fits then
				ctx.report{
					key = "python:" .. r.branch,
					message = _("MindSpeed {branch} is made for Python {want}, but {host} runs Python {have}.", { branch = r.branch, want = table.concat(r.python, ", "), host = host, have = probe.python.version }),
					suggestion = _("Create the training environment with one of those Python versions (a conda or venv environment on the host)."),
				}
			end
		end
	end,
}
