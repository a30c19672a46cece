-- environment.cann: is the CANN toolkit installed, and was its set_env.sh sourced.

local ep = require("envprobe")
local inf = require("inference")

-- The CANN versions the installed torch_npu (or torch) pairs with, newest first.
local function wanted_cann(ctx, p)
	local pk = p.python.packages
	local out, seen = {}, {}
	for _i, r in ipairs(ctx.data("version_matrix").entries) do
		local npu = r.torch_npu:gsub("%s*%(.*%)$", "")
		local match = (pk.torch_npu and ep.vcmp(npu, ep.torch_base(pk.torch_npu)) == 0)
			or (not pk.torch_npu and pk.torch and r.torch == ep.torch_base(pk.torch) and r.status == "active")
		if match and not seen[r.cann] then
			seen[r.cann] = true
			out[#out + 1] = r.cann
		end
	end
	table.sort(out, function(a, b) return ep.vcmp(a, b) > 0 end)
	return out
end

-- The advice when no toolkit is installed: the release the installed torch_npu (or torch)
-- pairs with, when the matrix names one.
local function cann_advice(p, want)
	if #want == 0 then
		return _("Install the CANN toolkit for the host's architecture, then `source /usr/local/Ascend/ascend-toolkit/set_env.sh` "
			.. "(or /usr/local/Ascend/cann/set_env.sh for CANN 8.5 and later) and run the probe again.")
	end
	local pk = p.python.packages
	local installed = pk.torch_npu and ("torch_npu " .. pk.torch_npu) or ("torch " .. tostring(pk.torch))
	if #want > 1 then
		return _("Install the CANN toolkit {version} (the release the installed {installed} pairs with; also listed: "
			.. "{others}) for the host's architecture, then `source /usr/local/Ascend/ascend-toolkit/set_env.sh` "
			.. "(or /usr/local/Ascend/cann/set_env.sh for CANN 8.5 and later) and run the probe again.",
			{ version = want[1], installed = installed, others = table.concat(want, ", ", 2) })
	end
	return _("Install the CANN toolkit {version} (the release the installed {installed} pairs with) "
		.. "for the host's architecture, then `source /usr/local/Ascend/ascend-toolkit/set_env.sh` "
		.. "(or /usr/local/Ascend/cann/set_env.sh for CANN 8.5 and later) and run the probe again.",
		{ version = want[1], installed = installed })
end

return {
	id = "environment.cann",
	phase = "environment",
	evidence = { "env-probe" },
	title = _("CANN toolkit installed and set_env.sh sourced"),
	severity = "error",
	category = "environment",
	description = _("torch_npu loads the CANN runtime through the variables CANN's set_env.sh exports "
		.. "(ASCEND_TOOLKIT_HOME, ASCEND_HOME_PATH, ASCEND_OPP_PATH, LD_LIBRARY_PATH, PYTHONPATH). "
		.. "Checks that the probe found a toolkit (ascend_toolkit_install.info in the ascend-toolkit "
		.. "or cann layout) and that the probing shell had set_env.sh sourced; then that the Kernels "
		.. "package is installed at the toolkit's version, and NNAL (ATB) too when the project uses a "
		.. "large-model stack (transformers LLMs, MindSpeed, MindIE, ATB) (cann_packages.json)."),
	run = function(ctx)
		local p = ep.latest(ctx)
		if not p then return end
		local tk, env, host = p.cann.toolkit, p.env, ep.host_label(p)
		if not tk.version then
			local want = wanted_cann(ctx, p)
			ctx.report{
				key = "toolkit",
				message = _("No CANN toolkit was found on {host} (no ascend_toolkit_install.info under "
					.. "ASCEND_TOOLKIT_HOME, /usr/local/Ascend/ascend-toolkit/latest, /usr/local/Ascend/cann or ~/Ascend).",
					{ host = host }),
				suggestion = cann_advice(p, want),
			}
			return
		end
		local home = env.ASCEND_TOOLKIT_HOME or env.ASCEND_HOME_PATH
		local set_env = ep.set_env_path(p, ctx)
		if home and tk.path and home ~= tk.path and home ~= tk.real_path then
			ctx.report{
				key = "home-mismatch",
				severity = "warning",
				message = _("ASCEND_TOOLKIT_HOME/ASCEND_HOME_PATH on {host} is {home} but the toolkit the probe found is at "
					.. "{path} (CANN {version}).", { host = host, home = home, path = tk.path, version = tk.version }),
				suggestion = _("Source the set_env.sh of the toolkit you mean to use (`source {set_env}`) in a fresh shell, "
					.. "so the variables and the libraries agree.", { set_env = set_env }),
			}
		end
		if not p.cann.set_env_sourced then
			local missing = {}
			for _i, v in ipairs({ "ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_OPP_PATH" }) do
				if not env[v] or env[v] == "" then missing[#missing + 1] = v end
			end
			local ld = env.LD_LIBRARY_PATH
			local why
			if #missing > 0 then
				why = _("{vars} unset", { vars = table.concat(missing, ", ") })
			elseif ld then
				why = _("LD_LIBRARY_PATH lacks {dir}/lib64", { dir = tostring(home) })
			else
				why = _("LD_LIBRARY_PATH unset, so it lacks {dir}/lib64", { dir = tostring(home) })
			end
			ctx.report{
				key = "set_env",
				severity = "warning",
				message = _("CANN {version} is installed on {host} but set_env.sh was not sourced in the probing shell ({why}).",
					{ version = tk.version, host = host, why = why }),
				suggestion = _("Run `source {set_env}` before starting Python (add it to the training user's "
					.. "~/.bashrc or to the launch script), or source the generated scripts/npu_env.sh "
					.. "(`ferry fix --plugin environment.setup_script --yes` writes it). If you ran the probe "
					.. "through a non-interactive ssh command, ~/.bashrc may not have been read: probe from a login shell.",
					{ set_env = set_env }),
			}
		end
		-- the Kernels and NNAL packages go with the toolkit, at its version
		local kern, nnal = p.cann.kernels or {}, p.cann.nnal or {}
		local kp, np = ep.package(ctx, "kernels"), ep.package(ctx, "nnal")
		if not kern.version then
			ctx.report{
				key = "kernels",
				severity = "warning",
				message = _("No {package} was found next to CANN {version} on {host} ({purpose}).",
					{ package = _(kp.title), version = tk.version, host = host, purpose = _(kp.purpose) }),
				suggestion = _("Install {file} for this SoC and architecture, after the toolkit, then run the probe again.",
					{ file = (kp.file:gsub("<version>", tk.version)) }),
				data = { source = kp.source },
			}
		elseif not ep.same_cann(kern.version, tk.version) then
			ctx.report{
				key = "kernels",
				severity = "warning",
				message = _("The {package} on {host} is {found} but the toolkit is CANN {version}: the two are released and "
					.. "installed together.", { package = _(kp.title), host = host, found = kern.version, version = tk.version }),
				suggestion = _("Install the Kernels package of CANN {version} ({file}), or the toolkit matching the Kernels package.",
					{ version = tk.version, file = (kp.file:gsub("<version>", tk.version)) }),
				data = { source = kp.source },
			}
		end
		if nnal.version and not ep.same_cann(nnal.version, tk.version) then
			ctx.report{
				key = "nnal",
				severity = "warning",
				message = _("NNAL {found} on {host} does not match the toolkit CANN {version}.",
					{ found = nnal.version, host = host, version = tk.version }),
				suggestion = _("Install the NNAL package of CANN {version} ({file}) after sourcing the toolkit's set_env.sh.",
					{ version = tk.version, file = (np.file:gsub("<version>", tk.version)) }),
				data = { source = np.source },
			}
		elseif not nnal.version then
			local uses = inf.signals(ctx).llm and _("loads a transformers language model")
			if not uses then
				for _i, path in ipairs(ctx.files("%.py$")) do
					local text = ctx.read(path) or ""
					local w = text:match("mindspeed") or text:match("torch_atb") or text:match("atb_llm") or text:match("mindie")
					if w then uses = _("uses {what} ({file})", { what = w, file = path }) break end
				end
			end
			if uses then
				ctx.report{
					key = "nnal",
					severity = "warning",
					message = _("The project {uses} but no NNAL was found on {host} ({purpose}).",
						{ uses = uses, host = host, purpose = _(np.purpose) }),
					suggestion = _("Install {file} after sourcing the toolkit's set_env.sh, then "
						.. "`source /usr/local/Ascend/nnal/atb/set_env.sh` in the launch script.",
						{ file = (np.file:gsub("<version>", tk.version)) }),
					data = { source = np.source },
				}
			end
		end
	end,
}
