-- environment.smoke: the NPU smoke test of the probe (`sh probe.sh --smoke`, or
-- `ferry ingest env-probe --local --smoke`): torch and torch_npu imported, a matmul and a
-- conv run on the NPU and compared with the CPU. It is the one proof that the stack the
-- probe lists works on the card; a failure names the step that broke.

local ep = require("envprobe")

-- What to do when a step failed, by the step the probe reached.
local STEP_ADVICE = {
	["import torch"] = N_("Install the torch version the version matrix pins for this CANN release in the Python the job uses, then probe again."),
	["import torch_npu"] = N_("Install the torch_npu build that matches both torch and the CANN release (version matrix), and source set_env.sh before Python starts; the import error above names what is missing."),
	["torch.npu.is_available"] = N_("torch_npu loaded but sees no NPU: check that npu-smi lists the cards, that the user may open /dev/davinci*, and that ASCEND_RT_VISIBLE_DEVICES does not hide them."),
	matmul = N_("The first operator on the card failed or disagreed with the CPU: check that the driver, firmware and CANN versions match, then rerun the probe with ASCEND_GLOBAL_LOG_LEVEL=1 and read the plog."),
	conv2d = N_("A convolution failed or disagreed with the CPU while the matmul worked: the operator kernels package (Kernels) may be missing or not match CANN; reinstall it for this SoC."),
}

local function fmt_err(x)
	return string.format("%.2e", x or 0)
end

return {
	id = "environment.smoke",
	phase = "environment",
	evidence = { "env-probe" },
	title = _("NPU smoke test of the probed host"),
	severity = "error",
	category = "environment",
	description = _("Reads the smoke test of the newest environment probe (probe.sh --smoke): whether torch and torch_npu import, whether torch_npu sees the cards, and whether a matmul and a conv on the NPU agree with the CPU. A failed step is an error naming it; the versions the test imported are compared with the package versions the probe read, which differ when another installation shadows the one pip lists."),
	run = function(ctx)
		local p = ep.latest(ctx)
		if not p or type(p.smoke) ~= "table" or not p.smoke.ran then return end
		local s = p.smoke
		local host = (p.host and p.host.hostname) or "?"
		if s.ok then
			local parts = {}
			for _i, t in ipairs(s.tests or {}) do
				parts[#parts + 1] = string.format("%s %s", t.name or "?", fmt_err(t.max_rel_err))
			end
			ctx.report{
				key = "smoke:ok", severity = "info",
				message = _("The NPU smoke test passed on {host}: torch {torch} and torch_npu {torch_npu} imported, {cards} card(s) seen, NPU results agree with the CPU (largest relative difference: {results}).",
					{ host = host, torch = (s.versions or {}).torch or "?", torch_npu = (s.versions or {}).torch_npu or "?",
					  cards = s.device_count or 0, results = table.concat(parts, ", ") }),
			}
		else
			local failed, first = {}, nil
			for _i, t in ipairs(s.tests or {}) do
				if not t.ok then
					failed[#failed + 1] = string.format("%s %s", t.name or "?", fmt_err(t.max_rel_err))
					first = first or t.name
				end
			end
			local step = first or s.step or "?"
			local advice = STEP_ADVICE[step]
			local message
			if #failed > 0 then
				message = _("The NPU smoke test on {host} ran but the NPU disagrees with the CPU beyond 1e-2: {results}.",
					{ host = host, results = table.concat(failed, ", ") })
			else
				message = _("The NPU smoke test on {host} stopped at step {step}: {error}",
					{ host = host, step = step, error = s.error or "?" })
			end
			ctx.report{
				key = "smoke:fail",
				message = message,
				suggestion = advice and _(advice) or _("Rerun `sh probe.sh --smoke` on the host and read the error it records; the step names where it stopped."),
			}
		end
		-- the torch the test imported is not the one the package metadata lists
		local pk = p.python and p.python.packages or {}
		for _i, name in ipairs({ "torch", "torch_npu" }) do
			local seen, listed = (s.versions or {})[name], pk[name]
			if seen and listed and ep.torch_base(seen) ~= ep.torch_base(listed) then
				ctx.report{
					key = "smoke:shadow:" .. name, severity = "warning",
					message = _("The smoke test imported {package} {seen} on {host}, but the installed package metadata says {listed}: another installation shadows the one pip manages.",
						{ package = name, seen = seen, listed = listed, host = host }),
					suggestion = _("Find where it comes from (python -c 'import {package}; print({package}.__file__)') and remove the stray copy or fix PYTHONPATH, so the job imports the version that was checked.",
						{ package = name }),
				}
			end
		end
	end,
}
