-- environment.project_pins: the project's torch / torch_npu requirements against the host's versions.

local ep = require("envprobe")

return {
	id = "environment.project_pins",
	phase = "environment",
	evidence = { "env-probe" },
	title = _("Project's torch and torch_npu requirements against the host"),
	severity = "warning",
	category = "versions",
	description = _("Compares the torch and torch_npu requirements in requirements*.txt, setup.py, "
		.. "setup.cfg and pyproject.toml with the versions installed on the probed host. A project "
		.. "pinned to another torch than the host's either reinstalls torch over the NPU build (and "
		.. "breaks torch_npu) or runs with versions it was never tested with."),
	run = function(ctx)
		local p = ep.latest(ctx)
		if not p then return end
		local pk = p.python.packages
		local rows = ctx.data("version_matrix").entries
		local host_cann = p.cann.toolkit.version
		for _i, name in ipairs({ "torch", "torch_npu" }) do
			local have = pk[name]
			for _i, s in ipairs(ep.pins(ctx, name)) do
				local f = {
					file = s.file, line = s.line, col = s.col, end_line = s.line, end_col = s.col + #s.text,
					key = name .. ":" .. s.text,
				}
				if not have then
					-- the versions check reports the missing package; say what the pin implies
					if name == "torch" and s.op == "==" then
						local row
						for _i, r in ipairs(rows) do
							if r.torch == ep.torch_base(s.version) and (not host_cann or ep.same_cann(r.cann, host_cann))
								and (not row or (row.status ~= "active" and r.status == "active")) then row = r end
						end
						f.severity = "info"
						f.message = _("The project pins `{pin}`; {host} has no torch installed.", { pin = s.text, host = ep.host_label(p) })
						if row then
							f.suggestion = _("Install torch {torch} (CPU wheel) and torch_npu {npu} on the host; they pair with CANN {cann}.",
								{ torch = row.torch, npu = row.torch_npu, cann = row.cann })
						elseif host_cann then
							f.suggestion = _("No torch_npu release pairs torch {torch} with CANN {cann}; see the environment.versions "
								.. "finding for the nearest supported combination.", { torch = s.version, cann = host_cann })
						else
							f.suggestion = _("No torch_npu release pairs torch {torch}; see the environment.versions "
								.. "finding for the nearest supported combination.", { torch = s.version })
						end
						ctx.report(f)
					end
				elseif not ep.satisfies(have, s.op, s.version) then
					f.message = _("The project requires `{pin}` but {host} has {name} {version}.",
						{ pin = s.text, host = ep.host_label(p), name = name, version = have })
					if name == "torch" then
						local row
						for _i, r in ipairs(rows) do
							if s.op == "==" and r.torch == ep.torch_base(s.version) and (not host_cann or ep.same_cann(r.cann, host_cann))
								and (not row or (row.status ~= "active" and r.status == "active")) then row = r end
						end
						if row then
							f.suggestion = _("Either change the requirement to the host's `torch=={have}` (the version torch_npu was "
								.. "installed for), or install torch {torch} (CPU wheel) with torch_npu {npu}, which pairs with CANN "
								.. "{cann} on the host. Installing the requirements unchanged would replace the host's torch and break "
								.. "torch_npu.", { have = ep.torch_base(have), torch = row.torch, npu = row.torch_npu, cann = row.cann })
						else
							f.suggestion = _("Either change the requirement to the host's `torch=={have}` (the version torch_npu was "
								.. "installed for), or install a torch that satisfies `{pin}` and has a torch_npu release for the "
								.. "host's CANN on the host. Installing the requirements unchanged would replace the host's torch and "
								.. "break torch_npu.", { have = ep.torch_base(have), pin = s.text })
						end
					else
						f.suggestion = _("Align the requirement with the host's torch_npu {have} (or install the required torch_npu "
							.. "on the host with its matching torch and CANN).", { have = have })
					end
					ctx.report(f)
				end
			end
		end
	end,
}
