-- environment.npu: are NPUs visible on the host, healthy, free, and enough for the plan.

local ep = require("envprobe")

local CONTAINER_HINT = "In a container, pass the devices (--device /dev/davinci<N> for each card, "
	.. "--device /dev/davinci_manager --device /dev/devmm_svm --device /dev/hisi_hdc) and mount "
	.. "/usr/local/Ascend/driver, /usr/local/bin/npu-smi and /etc/ascend_install.info read-only."

local function first_line(s)
	s = tostring(s or "")
	for l in s:gmatch("[^\n]+") do
		l = l:gsub("^%s+", ""):gsub("%s+$", "")
		if l ~= "" then return l end
	end
	return ""
end

return {
	id = "environment.npu",
	phase = "environment",
	title = _("NPU visibility, health and capacity"),
	severity = "error",
	category = "devices",
	description = _("Reads the probe's `npu-smi info` table and /dev/davinci* device nodes: no NPU "
		.. "visible, a chip whose health is not OK, a chip already busy with another job's memory, "
		.. "fewer chips than the plan's target.cards, and an ASCEND_RT_VISIBLE_DEVICES value the "
		.. "runtime would misread (it takes ascending logical IDs separated by commas, without "
		.. "spaces, and stops at the first invalid character)."),
	run = function(ctx)
		local p = ep.latest(ctx)
		if not p then return end
		local n = p.npu
		local chips, devices = n.chips, n.devices
		local host = ep.host_label(p)
		if #chips == 0 and #devices == 0 then
			local smi = n.npu_smi_available and ("npu-smi answered: \"" .. first_line(n.raw) .. "\"")
				or "npu-smi is not installed or not on PATH"
			ctx.report{
				key = "no-npu",
				message = "No NPU is visible on " .. host .. ": " .. smi .. ", and there is no /dev/davinci* device node.",
				suggestion = "Run the probe on the NPU host itself. Check that the NPU driver is installed "
					.. "(/usr/local/Ascend/driver/version.info) and that `npu-smi info` lists the cards. " .. CONTAINER_HINT,
			}
			return
		end
		if #chips == 0 then
			ctx.report{
				key = "no-table",
				severity = "warning",
				message = #devices .. " device node(s) exist on " .. host .. " but "
					.. (n.npu_smi_available and ("npu-smi listed no chip (\"" .. first_line(n.raw) .. "\")") or "npu-smi is not available")
					.. ", so chip health and memory are unknown.",
				suggestion = "Make `npu-smi info` work for the training user (install the driver's tools or, in a "
					.. "container, mount /usr/local/bin/npu-smi and /usr/local/Ascend/driver) and run the probe again.",
			}
		elseif #devices == 0 then
			ctx.report{
				key = "no-devices",
				severity = "warning",
				message = "npu-smi lists " .. #chips .. " chip(s) on " .. host .. " but no /dev/davinci* device node is visible to the probing user.",
				suggestion = "Processes here cannot open the NPUs. " .. CONTAINER_HINT,
			}
		end

		local healthy = {}
		for i, c in ipairs(chips) do
			local label = "NPU " .. tostring(c.id) .. " chip " .. tostring(c.chip) .. " (" .. tostring(c.name)
				.. (c.bus_id and (", " .. c.bus_id) or "") .. ")"
			if c.health ~= "OK" then
				ctx.report{
					key = "health:" .. tostring(c.id) .. ":" .. tostring(c.chip),
					message = label .. " reports health " .. tostring(c.health or "unknown") .. " on " .. host .. ".",
					suggestion = "Keep jobs off this chip until the host administrator has checked it (driver logs, "
						.. "`npu-smi info`); list only healthy chips in ASCEND_RT_VISIBLE_DEVICES.",
				}
			else
				healthy[#healthy + 1] = i - 1
				local used = c.hbm_total_mb and c.hbm_total_mb > 0 and c.hbm_used_mb or c.memory_used_mb
				local total = ep.chip_memory_mb(c)
				if used and total and used > total / 2 then
					ctx.report{
						key = "busy:" .. tostring(c.id) .. ":" .. tostring(c.chip),
						severity = "warning",
						message = string.format("%s already has %d of %d MB of device memory in use on %s.", label, used, total, host),
						suggestion = "Another job is probably running on it (see the process table of `npu-smi info`); "
							.. "wait for it or choose other chips with ASCEND_RT_VISIBLE_DEVICES.",
					}
				end
			end
		end

		local cards = ep.config_number(ctx, "target.cards")
		local nodes = ep.config_number(ctx, "target.nodes") or 1
		if cards and #chips > 0 then
			local per_node = math.ceil(cards / math.max(nodes, 1))
			if per_node > #healthy then
				ctx.report{
					key = "capacity",
					message = string.format("The plan needs %d card(s) per node (target.cards %d over %d node(s)) but %s has %d healthy chip(s).",
						per_node, cards, nodes, host, #healthy),
					suggestion = "Reduce target.cards (`ferry config target.cards " .. (#healthy * nodes) .. "`), add nodes, or get a host with more free chips.",
				}
			end
		end

		local vis = p.env.ASCEND_RT_VISIBLE_DEVICES
		if type(vis) == "string" and vis ~= "" then
			local problem
			if not vis:match("^[%d,]+$") or vis:match(",,") or vis:match("^,") or vis:match(",$") then
				problem = "it is not a comma-separated list of numbers without spaces; the runtime stops reading at the first invalid character"
			else
				local prev = -1
				for id in vis:gmatch("%d+") do
					local k = tonumber(id)
					if k <= prev then problem = "the IDs are not in ascending order" break end
					if #chips > 0 and k >= #chips then problem = "ID " .. id .. " does not exist (" .. #chips .. " chips)" break end
					prev = k
				end
			end
			if problem then
				ctx.report{
					key = "visible-devices",
					severity = "warning",
					message = "ASCEND_RT_VISIBLE_DEVICES=\"" .. vis .. "\" on " .. host .. ": " .. problem .. ".",
					suggestion = "Set it to ascending logical IDs, e.g. ASCEND_RT_VISIBLE_DEVICES=" .. (#healthy > 0 and table.concat(healthy, ",") or "0") .. ".",
				}
			end
		end
	end,
}
