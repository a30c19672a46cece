-- environment.apex: the apex a project that uses apex needs on the NPU host.
--
-- NVIDIA's apex is CUDA extensions; on Ascend, apex.amp and the NpuFused optimizers run
-- only through Ascend's adapted APEX (plugins/data/ascend_apex.json: gitee.com/ascend/apex,
-- whose wheel is apex-0.1+ascend), which ships only those modules. With an environment
-- probe, each apex import of the project is judged against the host's apex:
--   none on the host: an import outside try/except fails (error); one inside falls back
--     (info);
--   NVIDIA's build: every import succeeds and runs CUDA kernels on an NPU host (error);
--   Ascend's build: an import of a module it does not ship fails like a missing apex.

local ep = require("envprobe")

-- The apex module an import line brings in ("apex.amp" for `from apex import amp`), or nil.
local function imported(line)
	local code = line:gsub("#.*$", "")
	local mod, names = code:match("^%s*from%s+(apex[%w_%.]*)%s+import%s+(.+)$")
	if mod then
		local first = names:gsub("[()]", ""):match("^%s*([%w_]+)")
		return first and (mod .. "." .. first) or mod
	end
	return code:match("^%s*import%s+(apex[%w_%.]*)")
end

-- Is line n inside a `try:` block (the nearest less-indented line above it is `try:`)?
local function guarded(lines, n)
	local indent = #lines[n]:match("^%s*")
	if indent == 0 then return false end
	for i = n - 1, 1, -1 do
		local l = lines[i]
		if l:match("%S") then
			local ind = #l:match("^%s*")
			if ind < indent then return l:match("^%s*try%s*:") ~= nil end
		end
	end
	return false
end

-- Every apex import of the project: {file=, line=, code=, module=, guarded=}.
local function uses(ctx)
	local out = {}
	for _i, path in ipairs(ctx.files("%.py$")) do
		if ctx.find(path, "apex") then
			local lines = ctx.lines(path) or {}
			for n, l in ipairs(lines) do
				local mod = imported(l)
				if mod then
					out[#out + 1] = { file = path, line = n, code = (l:gsub("^%s+", "")), module = mod, guarded = guarded(lines, n) }
				end
			end
		end
	end
	return out
end

-- Does Ascend's APEX ship the module?
local function provided(ascend, mod)
	for _i, p in ipairs(ascend.provides) do
		if mod == p or mod:sub(1, #p + 1) == p .. "." or (p:match("NpuFused$") and mod:sub(1, #p) == p) or mod:sub(1, #p) == p then
			return true
		end
	end
	return mod == "apex"
end

return {
	id = "environment.apex",
	phase = "environment",
	evidence = { "env-probe" },
	title = _("apex on the NPU host"),
	severity = "error",
	category = "libraries",
	description = _("In a project that imports apex, judges each import against the apex package of the newest environment "
		.. "probe: without apex an unguarded import fails (a guarded one falls back); NVIDIA's build runs CUDA kernels "
		.. "on the NPU host; Ascend's adapted APEX (apex-0.1+ascend, gitee.com/ascend/apex) ships amp, combine tensors "
		.. "and the NpuFused optimizers only, so other apex modules fail with it too. The build steps come from its README."),
	run = function(ctx)
		local probe = ep.latest(ctx)
		if not probe then return end
		local sites = uses(ctx)
		if #sites == 0 then return end
		local ascend = ctx.data("ascend_apex").entries[1]
		local host, have = ep.host_label(probe), probe.python.packages.apex
		local py = tostring(probe.python.version or ""):match("^(%d+%.%d+)") or "3.x"
		local steps = {}
		for _i, c in ipairs(ascend.build) do steps[#steps + 1] = (c:gsub("{python}", py)) end
		for _i, c in ipairs(ascend.install) do steps[#steps + 1] = c end
		local build = table.concat(steps, " && ")
		local is_ascend = have and tostring(have):find(ascend.version_marker, 1, true) ~= nil
		if not have and not ep.asked(probe, "apex") then return end
		local reported = false
		for _i, u in ipairs(sites) do
			local f = { file = u.file, line = u.line, key = u.module }
			if not have or (is_ascend and not provided(ascend, u.module)) then
				local a = { code = u.code, host = host, module = u.module, build = build }
				if u.guarded then
					f.severity = "info"
					f.message = have and _("The project imports {module} inside try/except (`{code}`); Ascend's APEX on {host} does not ship it, so the import falls back.", a)
						or _("The project imports apex inside try/except (`{code}`) and {host} has no apex: the import falls back.", a)
					f.suggestion = _("Check that the fallback is what the run should use on the NPU (a plain PyTorch layer or optimizer).")
				else
					f.message = have and _("The project imports {module} (`{code}`), which Ascend's APEX on {host} does not ship (it has amp, combine tensors and the NpuFused optimizers): the import fails there.", a)
						or _("The project imports apex (`{code}`), but {host} has no apex: the import fails there.", a)
					f.suggestion = have and _("Replace it with a PyTorch or torch_npu counterpart (the adapt findings name them), or guard the import with a fallback.")
						or _("Move to native AMP (torch.autocast('npu'), torch.npu.amp.GradScaler) and torch_npu.optim.NpuFused* as the adapt findings say, or build Ascend's adapted APEX against the host's torch_npu: {build}", a)
				end
				ctx.report(f)
				reported = true
			elseif not is_ascend then
				f.message = _("The project imports apex (`{code}`), and {host} has apex {version}, NVIDIA's build: its amp and fused kernels are CUDA code and do not run on the NPU, even where the import is guarded.",
					{ code = u.code, host = host, version = tostring(have) })
				f.suggestion = _("Uninstall it and install Ascend's adapted APEX (its wheel is apex-0.1+ascend): {build}", { build = build })
				ctx.report(f)
				reported = true
				break -- one finding says it for the host
			end
		end
		if is_ascend and not reported then
			ctx.report{
				file = sites[1].file, line = sites[1].line, key = "ascend:" .. tostring(have), severity = "info",
				message = _("{host} has Ascend's adapted APEX {version} for the project's apex (`{code}`): it supports {features}.",
					{ host = host, version = tostring(have), code = sites[1].code, features = table.concat(ascend.features, "; ") }),
				suggestion = _("With apex.amp, pass combine_grad=True to amp.initialize to unscale the gradients in one operation, and use apex.optimizers.NpuFused* in place of apex's CUDA fused optimizers."),
			}
		end
	end,
}
