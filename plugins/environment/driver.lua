-- environment.driver: the NPU driver version.
--
-- It reports a driver it cannot identify, version files that disagree with npu-smi, and a
-- driver older than the installed CANN release needs, where a release note states the
-- pairing (plugins/data/cann_driver.json; releases not listed there are not judged).

local ep = require("envprobe")

return {
	id = "environment.driver",
	phase = "environment",
	evidence = { "env-probe" },
	title = _("NPU driver version"),
	severity = "warning",
	category = "environment",
	description = _("Reads the driver version from /usr/local/Ascend/driver/version.info and from the "
		.. "`npu-smi info` title line. A host whose driver cannot be identified, or whose version "
		.. "file disagrees with the running npu-smi (a container mounting another driver than the "
		.. "host runs), gets a warning, and so does a driver older than the installed CANN release "
		.. "needs according to its release notes (cann_driver.json). The firmware is checked against "
		.. "the firmware versions the driver's version.info declares (compatible_version_fw)."),
	run = function(ctx)
		local p = ep.latest(ctx)
		if not p then return end
		local d, n, host = p.driver, p.npu, ep.host_label(p)
		local has_npu = #n.chips > 0 or #n.devices > 0
		if not d.version and not d.npu_smi_version then
			if has_npu then
				ctx.report{
					key = "unknown",
					message = _("The NPU driver version on {host} is unknown: /usr/local/Ascend/driver/version.info is missing "
						.. "and npu-smi gave no version.", { host = host }),
					suggestion = _("Check that the driver package is installed (and, in a container, that "
						.. "/usr/local/Ascend/driver is mounted), then run the probe again."),
				}
			end
			return
		end
		local running = d.npu_smi_version or d.version
		local cann = p.cann and p.cann.toolkit and p.cann.toolkit.version
		for _i, e in ipairs(ctx.data("cann_driver").entries) do
			if cann and ep.same_cann(cann, e.cann) and ep.vcmp(running, e.min_hdk) < 0 then
				ctx.report{
					key = "too-old",
					message = _("The NPU driver {driver} on {host} is older than CANN {cann} needs: its release notes pair it "
						.. "with Ascend HDK {hdk}.", { driver = running, host = host, cann = e.cann, hdk = table.concat(e.hdk, ", ") }),
					suggestion = _("Upgrade the driver and firmware to Ascend HDK {min} or later (firmware "
						.. "first, then the driver, then reboot), or install a CANN release paired with driver {driver}.",
						{ min = e.min_hdk, driver = running }),
				}
			end
		end
		-- the firmware against the versions the driver's version.info says it works with
		if d.firmware and d.firmware_compatible then
			local ranges, fits = {}, false
			for lo, hi in d.firmware_compatible:gmatch("%[([^,%]]*),([^%]]*)%]") do
				lo, hi = lo:match("^%s*(.-)%s*$"), hi:match("^%s*(.-)%s*$")
				ranges[#ranges + 1] = "[" .. lo .. ", " .. hi .. "]"
				if ep.vcmp(d.firmware, lo) >= 0 and ep.vcmp(d.firmware, hi) <= 0 then fits = true end
			end
			if #ranges > 0 and not fits then
				ctx.report{
					key = "firmware",
					severity = "error",
					message = _("The NPU firmware {firmware} on {host} is outside the firmware versions its driver {driver} "
						.. "works with ({ranges}, compatible_version_fw in driver/version.info).",
						{ firmware = d.firmware, host = host, driver = d.version or running, ranges = table.concat(ranges, ", ") }),
					suggestion = _("Install the firmware of the same Ascend HDK release as the driver (firmware first, then the "
						.. "driver, then reboot); the firmware package is {file}.", { file = ep.package(ctx, "firmware").file }),
				}
			end
		elseif d.firmware and d.firmware_package_version and d.package_version
			and ep.vcmp(d.firmware_package_version, d.package_version) ~= 0 then
			ctx.report{
				key = "firmware",
				message = _("The NPU firmware on {host} comes from Ascend HDK {firmware} but the driver from {driver}, and the "
					.. "driver's version.info names no compatible firmware range to check against.",
					{ host = host, firmware = d.firmware_package_version, driver = d.package_version }),
				suggestion = _("Check the HDK release notes for the pair, or install driver and firmware of one HDK release "
					.. "(firmware first, then the driver, then reboot)."),
			}
		end
		if d.version and d.npu_smi_version and ep.vcmp(d.version, d.npu_smi_version) ~= 0 then
			ctx.report{
				key = "mismatch",
				message = _("driver/version.info says {file} but npu-smi reports {running} on {host}.",
					{ file = d.version, running = d.npu_smi_version, host = host }),
				suggestion = _("The driver files and the running driver differ (often a container mounting "
					.. "another driver than the host runs, or an upgrade without a reboot). Mount the host's "
					.. "/usr/local/Ascend/driver, or reboot after the upgrade, and run the probe again."),
			}
		end
	end,
}
