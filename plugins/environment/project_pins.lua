-- environment.project_pins: the project's torch / torch_npu requirements against the host's versions.

local ep = require("envprobe")

-- Does version v satisfy "op want"?
local function satisfies(v, op, want)
	local c = ep.vcmp(v, want)
	if op == "==" or op == "===" then
		return c == 0 or (not want:find("%+") and ep.vcmp(ep.torch_base(v), want) == 0)
	elseif op == "!=" then return c ~= 0
	elseif op == ">=" then return c >= 0
	elseif op == "<=" then return c <= 0
	elseif op == ">" then return c > 0
	elseif op == "<" then return c < 0
	elseif op == "~=" then
		-- compatible release: >= want and same prefix without the last component
		local prefix = want:match("^(.*)%.[^%.]+$") or want
		return c >= 0 and ep.vcmp(v:sub(1, #prefix), prefix) == 0
	end
	return true
end

return {
	id = "environment.project_pins",
	phase = "environment",
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
						f.message = "The project pins `" .. s.text .. "`; " .. ep.host_label(p) .. " has no torch installed."
						f.suggestion = row and ("Install torch " .. row.torch .. " (CPU wheel) and torch_npu " .. row.torch_npu
							.. " on the host; they pair with CANN " .. row.cann .. ".")
							or ("No torch_npu release pairs torch " .. s.version .. (host_cann and (" with CANN " .. host_cann) or "")
							.. "; see the environment.versions finding for the nearest supported combination.")
						ctx.report(f)
					end
				elseif not satisfies(have, s.op, s.version) then
					f.message = "The project requires `" .. s.text .. "` but " .. ep.host_label(p) .. " has " .. name .. " " .. have .. "."
					if name == "torch" then
						local row
						for _i, r in ipairs(rows) do
							if s.op == "==" and r.torch == ep.torch_base(s.version) and (not host_cann or ep.same_cann(r.cann, host_cann))
								and (not row or (row.status ~= "active" and r.status == "active")) then row = r end
						end
						f.suggestion = "Either change the requirement to the host's `torch==" .. ep.torch_base(have)
							.. "` (the version torch_npu was installed for), or install "
							.. (row and ("torch " .. row.torch .. " (CPU wheel) with torch_npu " .. row.torch_npu .. ", which pairs with CANN " .. row.cann)
								or ("a torch that satisfies `" .. s.text .. "` and has a torch_npu release for the host's CANN"))
							.. " on the host. Installing the requirements unchanged would replace the host's torch and break torch_npu."
					else
						f.suggestion = "Align the requirement with the host's torch_npu " .. have
							.. " (or install the required torch_npu on the host with its matching torch and CANN)."
					end
					ctx.report(f)
				end
			end
		end
	end,
}
