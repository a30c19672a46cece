-- environment.npu: are NPUs visible on the host, healthy, free, and enough for the plan.

local ep = require("envprobe")

local function container_hint()
	return _("In a container, pass the devices (--device /dev/davinci<N> for each card, "
		.. "--device /dev/davinci_manager --device /dev/devmm_svm --device /dev/hisi_hdc) and mount "
		.. "/usr/local/Ascend/driver, /usr/local/bin/npu-smi and /etc/ascend_install.info read-only.")
end

local function first_line(s)
	s = tostring(s or "")
	for l in s:gmatch("[^\n]+") do
		l = l:gsub("^%s+", ""):gsub("%s+$", "")
		if l ~= "" then return l end
	end
	return ""
end

-- AI Core load at the probe's moment above which a chip counts as used by another job
-- (ferry's own threshold: an idle chip reads 0 %)
local BUSY_AICORE_PCT = 10

return {
	id = "environment.npu",
	phase = "environment",
	evidence = { "env-probe", "settings" },
	title = _("NPU visibility, health and capacity"),
	severity = "error",
	category = "devices",
	description = _("Reads the probe's `npu-smi info` table and /dev/davinci* device nodes: no NPU "
		.. "visible, a host whose chips are not the engagement's target.soc, a chip whose health is "
		.. "not OK, a chip already busy with another job (its memory, or its AI Core computing), "
		.. "fewer chips than the plan's target.cards, fewer visible to a job than that when "
		.. "ASCEND_RT_VISIBLE_DEVICES is set, and an ASCEND_RT_VISIBLE_DEVICES value the "
		.. "runtime would misread (it takes ascending logical IDs separated by commas, without "
		.. "spaces, and stops at the first invalid character)."),
	run = function(ctx)
		local p = ep.latest(ctx)
		if not p then return end
		local n = p.npu
		local chips, devices = n.chips, n.devices
		local host = ep.host_label(p)
		if #chips == 0 and #devices == 0 then
			local smi = n.npu_smi_available and _("npu-smi answered: \"{line}\"", { line = first_line(n.raw) })
				or _("npu-smi is not installed or not on PATH")
			ctx.report{
				key = "no-npu",
				message = _("No NPU is visible on {host}: {smi}, and there is no /dev/davinci* device node.", { host = host, smi = smi }),
				suggestion = _("Run the probe on the NPU host itself. Check that the NPU driver is installed "
					.. "(/usr/local/Ascend/driver/version.info) and that `npu-smi info` lists the cards. {hint}",
					{ hint = container_hint() }),
			}
			return
		end
		if #chips == 0 then
			ctx.report{
				key = "no-table",
				severity = "warning",
				message = n.npu_smi_available
					and _("{n} device node(s) exist on {host} but npu-smi listed no chip (\"{line}\"), so chip health and "
						.. "memory are unknown.", { n = #devices, host = host, line = first_line(n.raw) })
					or _("{n} device node(s) exist on {host} but npu-smi is not available, so chip health and memory are "
						.. "unknown.", { n = #devices, host = host }),
				suggestion = _("Make `npu-smi info` work for the training user (install the driver's tools or, in a "
					.. "container, mount /usr/local/bin/npu-smi and /usr/local/Ascend/driver) and run the probe again."),
			}
		elseif #devices == 0 then
			ctx.report{
				key = "no-devices",
				severity = "warning",
				message = _("npu-smi lists {n} chip(s) on {host} but no /dev/davinci* device node is visible to the probing user.",
					{ n = #chips, host = host }),
				suggestion = _("Processes here cannot open the NPUs. {hint}", { hint = container_hint() }),
			}
		end

		local healthy = {}
		for i, c in ipairs(chips) do
			local label = "NPU " .. tostring(c.id) .. " chip " .. tostring(c.chip) .. " (" .. tostring(c.name)
				.. (c.bus_id and (", " .. c.bus_id) or "") .. ")" -- npu-smi's own words for the chip
			if c.health ~= "OK" then
				ctx.report{
					key = "health:" .. tostring(c.id) .. ":" .. tostring(c.chip),
					message = c.health and _("{chip} reports health {health} on {host}.", { chip = label, health = tostring(c.health), host = host })
						or _("{chip} reports health unknown on {host}.", { chip = label, host = host }),
					suggestion = _("Keep jobs off this chip until the host administrator has checked it (driver logs, "
						.. "`npu-smi info`); list only healthy chips in ASCEND_RT_VISIBLE_DEVICES."),
				}
			else
				healthy[#healthy + 1] = i - 1
				local used = c.hbm_total_mb and c.hbm_total_mb > 0 and c.hbm_used_mb or c.memory_used_mb
				local total = ep.chip_memory_mb(c)
				local computing = type(c.aicore_pct) == "number" and c.aicore_pct >= BUSY_AICORE_PCT
				if (used and total and used > total / 2) or computing then
					ctx.report{
						key = "busy:" .. tostring(c.id) .. ":" .. tostring(c.chip),
						severity = "warning",
						message = (used and total and used > total / 2)
							and _("{chip} already has {used} of {total} MB of device memory in use on {host}.",
								{ chip = label, used = string.format("%d", used), total = string.format("%d", total), host = host })
							or _("{chip} is computing on {host} (AI Core {pct} % busy when probed): another job runs on it.",
								{ chip = label, pct = string.format("%d", c.aicore_pct), host = host }),
						suggestion = _("Another job is probably running on it (see the process table of `npu-smi info`); "
							.. "wait for it or choose other chips with ASCEND_RT_VISIBLE_DEVICES."),
					}
				end
			end
		end

		-- the chip the engagement plans for: ATC's --soc_version is npu-smi's Name with
		-- "Ascend" before it (ascend-toolchain.md §5), and the memory and parallel plan are
		-- that chip's; a host of another chip makes all of it wrong
		local soc = ctx.config("target.soc")
		if soc and soc ~= "" and #chips > 0 then
			local function norm(x) return tostring(x or ""):lower():gsub("^ascend", "") end
			local other = {}
			for _i, c in ipairs(chips) do
				if c.name and norm(c.name) ~= norm(soc) and not other[c.name] then
					other[c.name] = true
					other[#other + 1] = tostring(c.name)
				end
			end
			if #other > 0 then
				ctx.report{
					key = "soc:" .. table.concat(other, ","),
					message = _("{host} has {chips} NPUs, but the engagement targets {soc} (target.soc): its memory and parallel plan and the atc --soc_version are for another chip.",
						{ host = host, chips = table.concat(other, ", "), soc = soc }),
					suggestion = _("Probe the host the engagement will run on, or set target.soc to this host's chip (`ferry config target.soc Ascend{chip}`) and review the design phase again.",
						{ chip = other[1] }),
				}
			end
		end

		local cards = ep.config_number(ctx, "target.cards")
		local nodes = ep.config_number(ctx, "target.nodes") or 1
		-- ASCEND_RT_VISIBLE_DEVICES set on the host limits the job to the chips it lists
		local vis = p.env.ASCEND_RT_VISIBLE_DEVICES
		local visible
		if type(vis) == "string" and vis:match("^%d+[%d,]*$") then
			visible = {}
			for id in vis:gmatch("%d+") do visible[tonumber(id)] = true end
		end
		if cards and #chips > 0 and visible then
			local usable = 0
			for _i, k in ipairs(healthy) do if visible[k] then usable = usable + 1 end end
			local per_node = math.ceil(cards / math.max(nodes, 1))
			if per_node <= #healthy and per_node > usable then
				ctx.report{
					key = "capacity-visible",
					message = _("The plan needs {per_node} card(s) per node, but ASCEND_RT_VISIBLE_DEVICES=\"{value}\" on {host} lets a job see {usable} healthy chip(s).",
						{ per_node = string.format("%d", per_node), value = vis, host = host, usable = usable }),
					suggestion = _("List the chips the job should use in ASCEND_RT_VISIBLE_DEVICES (scripts/npu_env.sh keeps a value already set in the shell), e.g. {ids}.",
						{ ids = table.concat(healthy, ",") }),
				}
			end
		end
		if cards and #chips > 0 then
			local per_node = math.ceil(cards / math.max(nodes, 1))
			if per_node > #healthy then
				ctx.report{
					key = "capacity",
					message = _("The plan needs {per_node} card(s) per node (target.cards {cards} over {nodes} node(s)) but {host} "
						.. "has {healthy} healthy chip(s).", { per_node = string.format("%d", per_node), cards = string.format("%d", cards),
						nodes = string.format("%d", nodes), host = host, healthy = #healthy }),
					suggestion = _("Reduce target.cards (`ferry config target.cards {n}`), add nodes, or get a host with more free chips.",
						{ n = string.format("%d", #healthy * nodes) }),
				}
			end
		end

		if type(vis) == "string" and vis ~= "" then
			local problem
			if not vis:match("^[%d,]+$") or vis:match(",,") or vis:match("^,") or vis:match(",$") then
				problem = _("it is not a comma-separated list of numbers without spaces; the runtime stops reading at the first invalid character")
			else
				local prev = -1
				for id in vis:gmatch("%d+") do
					local k = tonumber(id)
					if k <= prev then problem = _("the IDs are not in ascending order") break end
					if #chips > 0 and k >= #chips then problem = _("ID {id} does not exist ({n} chips)", { id = id, n = #chips }) break end
					prev = k
				end
			end
			if problem then
				ctx.report{
					key = "visible-devices",
					severity = "warning",
					message = _("ASCEND_RT_VISIBLE_DEVICES=\"{value}\" on {host}: {problem}.", { value = vis, host = host, problem = problem }),
					suggestion = _("Set it to ascending logical IDs, e.g. ASCEND_RT_VISIBLE_DEVICES={ids}.",
						{ ids = #healthy > 0 and table.concat(healthy, ",") or "0" }),
				}
			end
		end
	end,
}
