-- environment.probe: is there an environment probe of the target host, and what does it show.

local ep = require("envprobe")
local shape = require("shape")
local words = require("words")

local function summary(p)
	local h, parts = p.host, {}
	local osname = type(h.os) == "table" and (h.os.pretty_name or h.os.id) or nil
	if osname then parts[#parts + 1] = osname end
	if h.arch then parts[#parts + 1] = h.arch end
	local chips, names, mem = p.npu.chips, {}, nil
	for _i, c in ipairs(chips) do
		if c.name then names[c.name] = (names[c.name] or 0) + 1 end
		mem = mem or ep.chip_memory_mb(c)
	end
	if #chips > 0 then
		local list = {}
		for n, k in pairs(names) do list[#list + 1] = k .. " x " .. n end
		table.sort(list)
		parts[#parts + 1] = mem and _("{chips} ({gb} GB each)", { chips = table.concat(list, ", "), gb = mem // 1024 })
			or table.concat(list, ", ")
	else
		parts[#parts + 1] = _("no NPU chips listed")
	end
	local function found(name, v)
		return v and (name .. " " .. v) or _("{name} not found", { name = name })
	end
	local function installed(name, v)
		return v and (name .. " " .. v) or _("{name} not installed", { name = name })
	end
	local pk = p.python.packages
	local driver = p.driver.version or p.driver.npu_smi_version
	parts[#parts + 1] = found("CANN", p.cann.toolkit.version)
	parts[#parts + 1] = driver and _("driver {version}", { version = driver }) or _("driver unknown")
	parts[#parts + 1] = found("Python", p.python.version)
	parts[#parts + 1] = installed("torch", pk.torch)
	parts[#parts + 1] = installed("torch_npu", pk.torch_npu)
	return words.join(parts)
end

return {
	id = "environment.probe",
	phase = "environment",
	evidence = { "env-probe" },
	title = _("Environment probe of the target host"),
	severity = "info",
	category = "environment",
	description = _("The environment checks read the newest `env-probe` artifact: a JSON description of "
		.. "the NPU host (OS, CPU, memory, Python packages, CANN, driver, `npu-smi info`, device nodes, "
		.. "environment variables) made by ferry's probe script. Print the script with "
		.. "`ferry probe-script > probe.sh`, run `sh probe.sh > result.json` on the host as an ordinary "
		.. "user (it only reads), and bring the result back with `ferry ingest env-probe result.json`; "
		.. "when ferry itself runs on the host, `ferry ingest env-probe --local` does both."),
	run = function(ctx)
		local p, why, art = ep.latest(ctx)
		if p then art = why end
		if not p and why == "none" then
			-- an error: signing the environment off would vouch for a host nothing has shown;
			-- where no probe can be had (the client's host is out of reach), waive it saying so
			ctx.report{
				key = "probe",
				severity = "error",
				message = _("No environment probe of the target NPU host has been ingested, so the environment checks cannot run and the environment cannot be signed off on evidence."),
				suggestion = _("Run `ferry probe-script > probe.sh`, copy probe.sh to the NPU host and run "
					.. "`sh probe.sh > result.json` there as the user who will train (it only reads, and "
					.. "finishes in seconds); copy result.json back and run `ferry ingest env-probe result.json`, "
					.. "then `ferry check --phase environment`. When ferry runs on the NPU host itself, "
					.. "`ferry ingest env-probe --local` probes and ingests in one step. If no probe can be had, "
					.. "waive this finding with the reason before signing the phase off."),
			}
			return
		end
		if not p then
			ctx.report{
				key = "probe",
				severity = "error",
				message = _("The newest environment probe (artifact {id}) cannot be read: {why}.", { id = tostring(art and art.id), why = tostring(why) }),
				suggestion = _("Run the probe again on the host and ingest the new result with `ferry ingest env-probe result.json`."),
			}
			return
		end
		if p.error then
			ctx.report{
				key = "probe-error",
				severity = "warning",
				message = _("The probe could not describe the host: {error}.", { error = tostring(p.error) }),
				suggestion = _("Install the missing tool on the host (awk is part of every POSIX system: package gawk or mawk) and run the probe again."),
			}
		end
		if #p.bad_fields > 0 then
			ctx.report{
				key = "probe-shape",
				severity = "warning",
				message = _("The probe (artifact {id}) has {listing}; the environment checks ignore them.",
					{ id = tostring(art.id), listing = shape.listing(p.bad_fields) }),
				suggestion = _("The document was changed after the probe wrote it, or written by another tool: run "
					.. "`ferry probe-script` on the host again and ingest its unedited result."),
			}
		end
		local missing = {}
		for _i, m in ipairs(type(p.missing) == "table" and p.missing or {}) do missing[#missing + 1] = tostring(m) end
		ctx.report{
			key = "probe",
			message = _("Probe of {host} (artifact {id}): {summary}.", { host = ep.host_label(p), id = tostring(art.id), summary = summary(p) }),
			suggestion = #missing > 0
				and _("Run the probe again and ingest it after changing the host (installing CANN, torch or "
					.. "torch_npu, sourcing set_env.sh); the checks always read the newest probe. Commands the probe did not "
					.. "find there: {commands}.", { commands = table.concat(missing, ", ") })
				or _("Run the probe again and ingest it after changing the host (installing CANN, torch or "
					.. "torch_npu, sourcing set_env.sh); the checks always read the newest probe."),
		}
	end,
}
