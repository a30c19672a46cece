-- environment.tools: the CANN command-line tools the later phases run on the host.
--
-- atc converts models (infer-convert), aoe tunes them (infer-optimize), msprof profiles a
-- process or an offline model run (tune, infer-optimize). The probe records where each was
-- found (the caller's PATH, or the toolkit's folders). A tool the engagement needs that is
-- missing is reported; one that is installed but off PATH gets the set_env.sh advice. A
-- probe too old to record tools is not judged.

local ep = require("envprobe")
local inf = require("inference")

return {
	id = "environment.tools",
	phase = "environment",
	evidence = { "env-probe", "settings" },
	title = _("CANN tools for the later phases (atc, msprof, aoe)"),
	severity = "warning",
	category = "environment",
	description = _("Checks that the probed host has the CANN programs the later phases run: `atc` when the "
		.. "engagement converts a model (ONNX export in the code, or ONNX/ATC artifacts), `aoe` for tuning "
		.. "that model, and `msprof` for profiling (tune, infer-optimize); and that they are on PATH "
		.. "(cann_packages.json)."),
	run = function(ctx)
		local p = ep.latest(ctx)
		if not p or not p.cann or not p.cann.tools or not p.cann.toolkit.version then return end
		local host = ep.host_label(p)
		local converts = inf.signals(ctx).onnx
		local want = {
			{ name = "atc", need = converts, severity = "warning" },
			{ name = "aoe", need = converts, severity = "info" },
			{ name = "msprof", need = true, severity = "info" },
		}
		for _i, w in ipairs(want) do
			local t = p.cann.tools[w.name]
			local e = ep.package(ctx, w.name)
			local phases = table.concat(e.phases, ", ")
			if w.need and t and not t.path then
				ctx.report{
					key = w.name,
					severity = w.severity,
					message = _("`{tool}` was not found on {host} (neither on PATH nor in the CANN {version} toolkit): the "
						.. "{phases} phase needs it ({purpose}).",
						{ tool = w.name, host = host, version = p.cann.toolkit.version, phases = phases, purpose = _(e.purpose) }),
					suggestion = _("Install the full CANN toolkit (the {tool} program ships with it) on the host "
						.. "that will run the {phases} phase, source its set_env.sh and run the probe again.",
						{ tool = w.name, phases = phases }),
					data = { source = e.source },
				}
			elseif w.need and t and t.path and not t.on_path then
				ctx.report{
					key = w.name .. "-path",
					severity = "info",
					message = _("`{tool}` is installed on {host} ({path}) but not on the probing shell's PATH.",
						{ tool = w.name, host = host, path = t.path }),
					suggestion = _("Run `source {set_env}` before the {phases} phase, so `{tool}` is found by name.",
						{ set_env = (ep.set_env_path(p, ctx)), phases = phases, tool = w.name }),
					data = { source = e.source },
				}
			end
		end
	end,
}
