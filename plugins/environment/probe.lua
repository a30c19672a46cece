-- environment.probe: is there an environment probe of the target host, and what does it show.

local ep = require("envprobe")
local shape = require("shape")

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
		parts[#parts + 1] = table.concat(list, ", ") .. (mem and string.format(" (%d GB each)", mem // 1024) or "")
	else
		parts[#parts + 1] = "no NPU chips listed"
	end
	parts[#parts + 1] = "CANN " .. (p.cann.toolkit.version or "not found")
	parts[#parts + 1] = "driver " .. (p.driver.version or p.driver.npu_smi_version or "unknown")
	parts[#parts + 1] = "Python " .. (p.python.version or "not found")
	local pk = p.python.packages
	parts[#parts + 1] = "torch " .. (pk.torch or "not installed")
	parts[#parts + 1] = "torch_npu " .. (pk.torch_npu or "not installed")
	return table.concat(parts, ", ")
end

return {
	id = "environment.probe",
	phase = "environment",
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
			ctx.report{
				key = "probe",
				message = "No environment probe of the target NPU host has been ingested, so the environment checks cannot run.",
				suggestion = "Run `ferry probe-script > probe.sh`, copy probe.sh to the NPU host and run "
					.. "`sh probe.sh > result.json` there as the user who will train (it only reads, and "
					.. "finishes in seconds); copy result.json back and run `ferry ingest env-probe result.json`, "
					.. "then `ferry check --phase environment`. When ferry runs on the NPU host itself, "
					.. "`ferry ingest env-probe --local` probes and ingests in one step.",
			}
			return
		end
		if not p then
			ctx.report{
				key = "probe",
				severity = "error",
				message = "The newest environment probe (artifact " .. tostring(art and art.id) .. ") cannot be read: " .. tostring(why) .. ".",
				suggestion = "Run the probe again on the host and ingest the new result with `ferry ingest env-probe result.json`.",
			}
			return
		end
		if p.error then
			ctx.report{
				key = "probe-error",
				severity = "warning",
				message = "The probe could not describe the host: " .. tostring(p.error) .. ".",
				suggestion = "Install the missing tool on the host (awk is part of every POSIX system: package gawk or mawk) and run the probe again.",
			}
		end
		if #p.bad_fields > 0 then
			ctx.report{
				key = "probe-shape",
				severity = "warning",
				message = string.format("The probe (artifact %s) has %s; the environment checks ignore them.",
					tostring(art.id), shape.listing(p.bad_fields)),
				suggestion = "The document was changed after the probe wrote it, or written by another tool: run "
					.. "`ferry probe-script` on the host again and ingest its unedited result.",
			}
		end
		local missing = {}
		for _i, m in ipairs(type(p.missing) == "table" and p.missing or {}) do missing[#missing + 1] = tostring(m) end
		ctx.report{
			key = "probe",
			message = "Probe of " .. ep.host_label(p) .. " (artifact " .. tostring(art.id) .. "): " .. summary(p) .. ".",
			suggestion = "Run the probe again and ingest it after changing the host (installing CANN, torch or "
				.. "torch_npu, sourcing set_env.sh); the checks always read the newest probe."
				.. (#missing > 0 and (" Commands the probe did not find there: " .. table.concat(missing, ", ") .. ".") or ""),
		}
	end,
}
