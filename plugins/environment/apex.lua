-- environment.apex: the apex a project that uses apex needs on the NPU host.
--
-- NVIDIA's apex is CUDA extensions; on Ascend, apex.amp and apex's fused optimizers run
-- only through Ascend's adapted APEX (plugins/data/ascend_apex.json: gitee.com/ascend/apex,
-- whose wheel is apex-0.1+ascend). With an environment probe, a project that imports apex
-- is told whether the host has none (the import fails), NVIDIA's build (its amp and fused
-- optimizers need CUDA) or Ascend's, and what the adapted build offers and how it is built.

local ep = require("envprobe")

-- Import forms that mean the project runs apex itself (not a mention in a comment).
local USES = { "^%s*import apex", "^%s*from apex[%. ]", "^%s*from apex import" }

-- The first project line that imports apex: path, line number, text; or nil.
local function first_use(ctx)
	for _i, path in ipairs(ctx.files("%.py$")) do
		if ctx.find(path, "apex") then
			for n, l in ipairs(ctx.lines(path) or {}) do
				for _i, pat in ipairs(USES) do
					if l:match(pat) then return path, n, l:gsub("^%s+", "") end
				end
			end
		end
	end
end

return {
	id = "environment.apex",
	phase = "environment",
	evidence = { "env-probe" },
	title = _("apex on the NPU host"),
	severity = "error",
	category = "libraries",
	description = _("In a project that imports apex, reads the apex package of the newest environment probe: none (the "
		.. "import fails) and NVIDIA's build (its amp and fused optimizers need CUDA) are errors; Ascend's adapted APEX "
		.. "(apex-0.1+ascend, gitee.com/ascend/apex) is named with what it supports. The build steps come from its README."),
	run = function(ctx)
		local probe = ep.latest(ctx)
		if not probe then return end
		local path, line, text = first_use(ctx)
		if not path then return end
		local ascend = ctx.data("ascend_apex").entries[1]
		local host, have = ep.host_label(probe), probe.python.packages.apex
		local where = { file = path, line = line }
		local build = table.concat(ascend.build, " && ") .. " && " .. table.concat(ascend.install, " && ")
		local function report(f)
			f.file, f.line = where.file, where.line
			ctx.report(f)
		end
		if not have then
			if not ep.asked(ctx, "apex") then return end
			report{
				key = "missing",
				message = _("The project imports apex (`{code}`), but {host} has no apex: the import fails there.", { code = text, host = host }),
				suggestion = _("Move to native AMP (torch.autocast('npu'), torch.npu.amp.GradScaler) and torch_npu.optim.NpuFused* as the adapt findings say, or build Ascend's adapted APEX against the host's torch_npu: {build}", { build = build }),
			}
		elseif not tostring(have):find(ascend.version_marker, 1, true) then
			report{
				key = "nvidia:" .. tostring(have),
				message = _("The project imports apex (`{code}`), and {host} has apex {version}, NVIDIA's build: its amp and fused optimizers are CUDA kernels and do not run on the NPU.", { code = text, host = host, version = tostring(have) }),
				suggestion = _("Uninstall it and install Ascend's adapted APEX (its wheel is apex-0.1+ascend): {build}", { build = build }),
			}
		else
			report{
				key = "ascend:" .. tostring(have), severity = "info",
				message = _("{host} has Ascend's adapted APEX {version} for the project's apex (`{code}`): it supports {features}.",
					{ host = host, version = tostring(have), code = text, features = table.concat(ascend.features, "; ") }),
				suggestion = _("With apex.amp, pass combine_grad=True to amp.initialize to unscale the gradients in one operation, and use apex.optimizers.NpuFused* in place of apex's CUDA fused optimizers."),
			}
		end
	end,
}
