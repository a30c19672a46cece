-- environment.driver: the NPU driver version.
--
-- It reports a driver it cannot identify, version files that disagree with npu-smi, and a
-- driver older than the installed CANN release needs, where a release note states the
-- pairing (plugins/data/cann_driver.json; releases not listed there are not judged).

local ep = require("envprobe")

return {
	id = "environment.driver",
	phase = "environment",
	title = "NPU driver version",
	severity = "warning",
	category = "environment",
	description = "Reads the driver version from /usr/local/Ascend/driver/version.info and from the "
		.. "`npu-smi info` title line. A host whose driver cannot be identified, or whose version "
		.. "file disagrees with the running npu-smi (a container mounting another driver than the "
		.. "host runs), gets a warning, and so does a driver older than the installed CANN release "
		.. "needs according to its release notes (cann_driver.json).",
	run = function(ctx)
		local p = ep.latest(ctx)
		if not p then return end
		local d, n, host = p.driver, p.npu, ep.host_label(p)
		local has_npu = #n.chips > 0 or #n.devices > 0
		if not d.version and not d.npu_smi_version then
			if has_npu then
				ctx.report{
					key = "unknown",
					message = "The NPU driver version on " .. host .. " is unknown: /usr/local/Ascend/driver/version.info is missing and npu-smi gave no version.",
					suggestion = "Check that the driver package is installed (and, in a container, that "
						.. "/usr/local/Ascend/driver is mounted), then run the probe again.",
				}
			end
			return
		end
		local running = d.npu_smi_version or d.version
		local cann = p.cann and p.cann.toolkit and p.cann.toolkit.version
		for _, e in ipairs(ctx.data("cann_driver").entries) do
			if cann and ep.same_cann(cann, e.cann) and ep.vcmp(running, e.min_hdk) < 0 then
				ctx.report{
					key = "too-old",
					message = "The NPU driver " .. running .. " on " .. host .. " is older than CANN " .. e.cann
						.. " needs: its release notes pair it with Ascend HDK " .. table.concat(e.hdk, ", ") .. ".",
					suggestion = "Upgrade the driver and firmware to Ascend HDK " .. e.min_hdk .. " or later (firmware "
						.. "first, then the driver, then reboot), or install a CANN release paired with driver "
						.. running .. ".",
				}
			end
		end
		if d.version and d.npu_smi_version and ep.vcmp(d.version, d.npu_smi_version) ~= 0 then
			ctx.report{
				key = "mismatch",
				message = "driver/version.info says " .. d.version .. " but npu-smi reports " .. d.npu_smi_version .. " on " .. host .. ".",
				suggestion = "The driver files and the running driver differ (often a container mounting "
					.. "another driver than the host runs, or an upgrade without a reboot). Mount the host's "
					.. "/usr/local/Ascend/driver, or reboot after the upgrade, and run the probe again.",
			}
		end
	end,
}
