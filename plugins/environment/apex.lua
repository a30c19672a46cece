-- environment.apex: the apex a project that uses apex needs on the NPU host.
--
-- NVIDIA's apex is CUDA extensions; on Ascend, apex.amp and the NpuFused optimizers run
-- only through Ascend's adapted APEX (plugins/data/ascend_apex.json: gitee.com/ascend/apex,
-- whose wheel is apex-0.1+ascend), which ships only those modules. With an environment
-- probe, each apex import of the project is judged against the host's apex:
--   none on the host: an unguarded import fails (error); a guarded one falls back (info)
--     only when its handler catches the failed import and goes on without apex: a handler
--     that raises again, installs apex at run time or imports it again, or a try whose
--     handlers catch something else (KeyError), is no fallback, and the import fails like
--     an unguarded one (the rule is plugins/lib/guard.lua's, which assess.gpu_libraries
--     follows too);
--   NVIDIA's build: every import succeeds and runs CUDA kernels on an NPU host (error);
--   Ascend's build: an import of a module it does not ship fails like a missing apex.

local ep = require("envprobe")
local guard = require("guard")
local py = require("py")
local words = require("words")

-- The apex module an import brings in (a py.imports entry: "apex.amp" for `from apex import
-- amp`, "apex.amp" for `import apex.amp`), or nil when it imports no apex.
local function apex_module(imp)
	if imp.module:match("^[%a_][%w_]*") ~= "apex" then return nil end
	if imp.name and imp.name ~= "*" then return imp.full end
	return imp.module
end

-- The apex imports of one file: {file=, line=, code=, module=, verdict=}, one per import
-- statement (its first apex name); verdict: what its guard does (guard.lua), nil unguarded.
-- An import of apex again inside the handler of a guarded one is part of that one's verdict.
local function file_uses(ctx, judge, path, out)
	local imps = py.imports(ctx, path) or {}
	local lines, seen = ctx.lines(path) or {}, {}
	for _i, imp in ipairs(imps) do
		local mod = apex_module(imp)
		if mod and not seen[imp.node.start_byte] then
			seen[imp.node.start_byte] = true
			local v = judge:verdict(path, imp.node, "apex", imps)
			if v and v.again then seen[v.again.start_byte] = true end
			local line = imp.node.line
			out[#out + 1] = { file = path, line = line, code = ((lines[line] or ""):gsub("^%s+", "")), module = mod, verdict = v }
		end
	end
end

-- Every apex import of the project, in file order (see file_uses).
local function uses(ctx)
	local out, judge = {}, guard.judge(ctx)
	for _i, path in ipairs(ctx.files("%.py$")) do
		if ctx.find(path, "apex") then file_uses(ctx, judge, path, out) end
	end
	return out
end

-- Why a guard is no fallback (a verdict of guard.lua other than "fallback"), as a clause.
local function no_fallback(v)
	if v.kind == "raises" then return _("its handler raises again") end
	if v.kind == "uncaught" then
		return _("its handler catches {caught}, not a failed import", { caught = v.catches })
	end
	if v.install then
		return _("its handler installs apex at run time (`{install}`, line {line})",
			{ install = words.clip(v.install.text:match("^[^\n]*"), 60), line = v.install.line })
	end
	return _("its handler imports apex again (line {line})", { line = v.again.line })
end

-- The message of an apex import that fails on the host (a = {code=, host=, module=}): the
-- host has no apex, or Ascend's APEX (have) does not ship the module; v, the verdict on
-- its guard, when a guard is there but is no fallback.
local function missing(a, have, v)
	if v then
		a.why = no_fallback(v)
		return have and _("The project imports {module} inside try/except (`{code}`), but the guard is no fallback: {why}. Ascend's APEX on {host} does not ship it (it has amp, combine tensors and the NpuFused optimizers), so the import fails there.", a)
			or _("The project imports apex inside try/except (`{code}`), but the guard is no fallback: {why}. {host} has no apex, so the import fails there.", a)
	end
	return have and _("The project imports {module} (`{code}`), which Ascend's APEX on {host} does not ship (it has amp, combine tensors and the NpuFused optimizers): the import fails there.", a)
		or _("The project imports apex (`{code}`), but {host} has no apex: the import fails there.", a)
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
		.. "probe: without apex an unguarded import fails, and so does a guarded one whose handler is no fallback (it "
		.. "raises again, installs apex at run time, or catches something other than a failed import); a true "
		.. "fallback is an info. NVIDIA's build runs CUDA kernels "
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
				local v = u.verdict
				if v and v.kind == "fallback" then
					f.severity = "info"
					f.message = have and _("The project imports {module} inside try/except (`{code}`); Ascend's APEX on {host} does not ship it, so the import falls back.", a)
						or _("The project imports apex inside try/except (`{code}`) and {host} has no apex: the import falls back.", a)
					f.suggestion = _("Check that the fallback is what the run should use on the NPU (a plain PyTorch layer or optimizer).")
				else
					f.message = missing(a, have, v)
					f.suggestion = have and _("Replace it with a PyTorch or torch_npu counterpart (the adapt findings name them), or guard the import with a fallback.")
						or _("Move to native AMP (torch.autocast('npu'), torch.npu.amp.GradScaler) and torch_npu.optim.NpuFused* as the adapt findings say, or build Ascend's adapted APEX against the host's torch_npu: {build}", a)
					if v and v.install then
						f.suggestion = _("{advice} Installing apex at run time does not help on the NPU host: no package index has Ascend's APEX (it is built from source), and an air-gapped host, as clients' NPU hosts often are, reaches no index at all. Install it on the host beforehand.",
							{ advice = f.suggestion })
					end
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
