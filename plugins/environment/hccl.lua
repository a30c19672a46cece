-- environment.hccl: HCCL settings for multi-card and multi-node plans.

local ep = require("envprobe")
local words = require("words")

local RANGES = { -- documented ranges (env_vars.json sources)
	{ "HCCL_CONNECT_TIMEOUT", 120, 7200, "s" },
	{ "HCCL_EXEC_TIMEOUT", 68, 17340, "s" },
	{ "HCCL_BUFFSIZE", 1, 2048, "MB" },
}

-- Does an entry with a parameter/card threshold (large_cluster) apply to the plan?
local function large_cluster(e, params_b, cards)
	return e.when == "large_cluster" and params_b and params_b >= (e.min_params_b or math.huge)
		and cards >= (e.min_cards or math.huge)
end

-- Is feature-value detection switched on in env (NPU_ASD_CONFIG enable:true, NPU_ASD_ENABLE 1-3)?
local function asd_on(env)
	local c, e = env.NPU_ASD_CONFIG, env.NPU_ASD_ENABLE
	if c and c:lower():find("enable%s*:%s*true") then return "NPU_ASD_CONFIG=" .. c end
	if e and (e == "1" or e == "2" or e == "3") then return "NPU_ASD_ENABLE=" .. e end
	return nil
end

return {
	id = "environment.hccl",
	phase = "environment",
	evidence = { "env-probe", "settings" },
	title = _("HCCL settings for multi-card and multi-node plans"),
	severity = "warning",
	category = "distributed",
	description = _("When the plan uses more than one card (target.cards > 1) or node (target.nodes > 1), "
		.. "checks that the probed shell sets the HCCL variables env_vars.json recommends for such "
		.. "plans: a link-setup timeout longer than the 120 s default, an execution timeout, and for "
		.. "multi-node jobs the network interface HCCL uses, and for plans of at least 70B parameters "
		.. "on 64 cards feature-value detection (NPU_ASD_CONFIG). Values outside the documented ranges "
		.. "(timeouts, HCCL_BUFFSIZE), settings the vendor advises against (MULTI_STREAM_MEMORY_REUSE=0 "
		.. "or 2) and feature-value detection on a smaller plan are reported too."),
	run = function(ctx)
		local p = ep.latest(ctx)
		if not p then return end
		local cards = ep.config_number(ctx, "target.cards") or 1
		local nodes = ep.config_number(ctx, "target.nodes") or 1
		local env, host = p.env, ep.host_label(p)
		for _i, r in ipairs(RANGES) do
			local name = r[1]
			local v = env[name] and tonumber(env[name])
			if env[name] and (not v or v < r[2] or v > r[3]) then
				ctx.report{
					key = "range:" .. name,
					message = _("{name}={value} on {host} is outside its documented range [{lo}, {hi}] {unit}.",
						{ name = name, value = tostring(env[name]), host = host, lo = r[2], hi = r[3], unit = r[4] }),
					suggestion = _("Set {name} to a value within [{lo}, {hi}]; see env_vars.json for the recommended one.",
						{ name = name, lo = r[2], hi = r[3] }),
				}
			end
		end
		local params_b = ep.config_number(ctx, "model.params_b")
		for _i, e in ipairs(ctx.data("env_vars").ascend or {}) do
			local v = env[e.name]
			for _i, bad in ipairs(e.discouraged or {}) do
				if v == bad then
					ctx.report{
						key = "discouraged:" .. e.name,
						message = _("{name}={value} on {host} is a setting the vendor advises against ({purpose}).",
							{ name = e.name, value = v, host = host, purpose = _(e.purpose) }),
						suggestion = _("Unset it or set {name}={value}.", { name = e.name, value = e.value }),
						data = { source = e.source },
					}
				end
			end
			local on = e.when == "large_cluster" and asd_on(env)
			if on and not large_cluster(e, params_b, cards) then
				ctx.report{
					key = "asd-small",
					message = _("Feature-value detection is on ({setting}) on {host}, but the plan ({params} billion parameters, "
						.. "{cards} card(s)) is below the {min_params}B parameters and {min_cards} cards from which the vendor "
						.. "advises it: it costs performance and device memory.",
						{ setting = on, host = host, params = tostring(params_b or "?"), cards = cards,
						  min_params = string.format("%g", e.min_params_b), min_cards = e.min_cards }),
					suggestion = _("Leave NPU_ASD_CONFIG/NPU_ASD_ENABLE unset for this plan, or keep it on knowingly for a run "
						.. "that chases a suspected hardware fault ({purpose}).", { purpose = _(e.purpose) }),
					data = { source = e.source },
				}
			end
		end
		if cards <= 1 and nodes <= 1 then return end
		local missing, either = {}, {}
		for _i, e in ipairs(ctx.data("env_vars").ascend or {}) do
			local applies = e.when == "multi_card" or (e.when == "multi_node" and nodes > 1)
			if large_cluster(e, params_b, cards) and not asd_on(env) then
				missing[#missing + 1] = _("{name}={value} ({purpose})", { name = e.name, value = e.value, purpose = _(e.purpose) })
			end
			if applies then
				if e.name == "HCCL_SOCKET_IFNAME" or e.name == "HCCL_IF_IP" then
					either[#either + 1] = e
				elseif not env[e.name] or env[e.name] == "" then
					missing[#missing + 1] = _("{name}={value} ({purpose})", { name = e.name, value = tostring(e.value), purpose = _(e.purpose) })
				end
			end
		end
		if #either > 0 then
			local set = false
			for _i, e in ipairs(either) do if env[e.name] and env[e.name] ~= "" then set = true end end
			if not set then
				missing[#missing + 1] = _("HCCL_SOCKET_IFNAME=<interface> or HCCL_IF_IP=<address> ({purpose})", { purpose = _(either[1].purpose) })
			end
		end
		if #missing == 0 then return end
		ctx.report{
			key = "missing",
			message = _("The plan uses {cards} card(s) on {nodes} node(s) but the probed shell on {host} does not set: {missing}.",
				{ cards = cards, nodes = nodes, host = host, missing = words.join(missing, ";") }),
			suggestion = _("Export these in the launch script of every rank, or source the generated scripts/npu_env.sh "
				.. "(`ferry fix --plugin environment.setup_script --yes` writes it with these values and their sources)."),
		}
	end,
}
