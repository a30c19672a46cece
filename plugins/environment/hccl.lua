-- environment.hccl: HCCL settings for multi-card and multi-node plans.

local ep = require("envprobe")

local RANGES = { -- documented ranges (env_vars.json sources)
	{ "HCCL_CONNECT_TIMEOUT", 120, 7200 },
	{ "HCCL_EXEC_TIMEOUT", 68, 17340 },
}

return {
	id = "environment.hccl",
	phase = "environment",
	title = "HCCL settings for multi-card and multi-node plans",
	severity = "warning",
	category = "distributed",
	description = "When the plan uses more than one card (target.cards > 1) or node (target.nodes > 1), "
		.. "checks that the probed shell sets the HCCL variables env_vars.json recommends for such "
		.. "plans: a link-setup timeout longer than the 120 s default, an execution timeout, and for "
		.. "multi-node jobs the network interface HCCL uses. Values outside the documented ranges "
		.. "are reported too.",
	run = function(ctx)
		local p = ep.latest(ctx)
		if not p then return end
		local cards = ep.config_number(ctx, "target.cards") or 1
		local nodes = ep.config_number(ctx, "target.nodes") or 1
		local env, host = p.env, ep.host_label(p)
		for _, r in ipairs(RANGES) do
			local name = r[1]
			local v = env[name] and tonumber(env[name])
			if env[name] and (not v or v < r[2] or v > r[3]) then
				ctx.report{
					key = "range:" .. name,
					message = name .. "=" .. tostring(env[name]) .. " on " .. host .. " is outside its documented range ["
						.. r[2] .. ", " .. r[3] .. "] seconds.",
					suggestion = "Set " .. name .. " to a value within [" .. r[2] .. ", " .. r[3] .. "]; see env_vars.json for the recommended one.",
				}
			end
		end
		if cards <= 1 and nodes <= 1 then return end
		local missing, either = {}, {}
		for _, e in ipairs(ctx.data("env_vars").ascend or {}) do
			local applies = e.when == "multi_card" or (e.when == "multi_node" and nodes > 1)
			if applies then
				if e.name == "HCCL_SOCKET_IFNAME" or e.name == "HCCL_IF_IP" then
					either[#either + 1] = e
				elseif not env[e.name] or env[e.name] == "" then
					missing[#missing + 1] = e.name .. "=" .. tostring(e.value) .. " (" .. e.purpose .. ")"
				end
			end
		end
		if #either > 0 then
			local set = false
			for _, e in ipairs(either) do if env[e.name] and env[e.name] ~= "" then set = true end end
			if not set then
				missing[#missing + 1] = "HCCL_SOCKET_IFNAME=<interface> or HCCL_IF_IP=<address> (" .. either[1].purpose .. ")"
			end
		end
		if #missing == 0 then return end
		ctx.report{
			key = "missing",
			message = string.format("The plan uses %d card(s) on %d node(s) but the probed shell on %s does not set: %s.",
				cards, nodes, host, table.concat(missing, "; ")),
			suggestion = "Export these in the launch script of every rank, or source the generated scripts/npu_env.sh "
				.. "(`ferry fix --plugin environment.setup_script --yes` writes it with these values and their sources).",
		}
	end,
}
