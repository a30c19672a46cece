-- assess.torch_version: the pinned PyTorch version against the torch_npu release matrix.

local ep = require("envprobe")
local tvops = require("tvops")

-- The versions of list that satisfy the requirement spec s (a range: `torch>=2.6`).
local function satisfying(list, s)
	local out = {}
	for _i, v in ipairs(list) do
		if ep.satisfies(v, s.op, s.version) then out[#out + 1] = v end
	end
	return out
end

-- torch requirement specs in dependency files: {file=, line=, col=, text=, op=, version=}
local function torch_specs(ctx)
	local out = {}
	for _i, path in ipairs(ctx.files()) do
		local base = path:match("[^/]*$")
		if base:match("^requirements.*%.txt$") or base == "pyproject.toml" or base == "setup.py" then
			for i, l in ipairs(ctx.lines(path) or {}) do
				local code = l:gsub("%s#.*$", "")
				if not code:match("^%s*#") then
					for s, spec, op, v in code:gmatch("()(torch%s*([=<>~!]=?)%s*([%d%.]+[%w%.%+]*))") do
						local before = s > 1 and code:sub(s - 1, s - 1) or ""
						if not before:match("[%w_%-%.]") then
							out[#out + 1] = { file = path, line = i, col = s, text = spec, op = op, version = v }
						end
					end
				end
			end
		end
	end
	return out
end

return {
	id = "assess.torch_version",
	phase = "assess",
	title = _("PyTorch version against the torch_npu / CANN matrix"),
	severity = "warning",
	category = "versions",
	description = _("Reads the torch requirement from requirements*.txt, setup.py and pyproject.toml and "
		.. "looks it up in version_matrix.json: which torch_npu release and CANN version pair with "
		.. "it, whether that pairing is still maintained, and which Python versions it supports. "
		.. "torch_npu exists only for specific PyTorch versions."),
	run = function(ctx)
		local rows = ctx.data("version_matrix").entries
		local active_torch = {}
		for _i, r in ipairs(rows) do if r.status == "active" then active_torch[r.torch] = true end end
		local list = {}
		for v in pairs(active_torch) do list[#list + 1] = v end
		table.sort(list, function(a, b) return ep.vcmp(a, b) < 0 end)
		-- a torchvision operator that needs the Torchvision Adapter narrows the choice to
		-- the torch versions the adapter is built for
		local use = tvops.adapter_use(ctx)
		local both = {}
		for _i, v in ipairs(list) do
			if tvops.adapter_for(ctx, v) then both[#both + 1] = v end
		end
		for _i, s in ipairs(torch_specs(ctx)) do
			local base = s.version:gsub("%+.*$", "")
			local f = { file = s.file, line = s.line, col = s.col, end_line = s.line, end_col = s.col + #s.text, key = s.text }
			local a = { spec = s.text, torch = base, versions = table.concat(list, ", "), both = table.concat(both, ", "),
				adapter = tvops.adapter_torches_text(ctx) }
			-- a range keeps the project's own bound (code written for torch>=2.6 may call
			-- torch.accelerator, which older releases lack): only versions inside it are offered
			local fit = satisfying(list, s)
			a.fit = table.concat(fit, ", ")
			if use then
				a.op, a.where = use.text, use.path .. ":" .. use.line
			end
			if s.op ~= "==" then
				f.severity = "info"
				f.message = _("PyTorch is required as `{spec}`, not pinned to one version.", a)
				if use and #both > 0 then
					f.suggestion = _("Pin torch to a version that has both a torch_npu release and a Torchvision Adapter build "
						.. "({both}): `{op}` ({where}) runs on NPU tensors only through the adapter, which is built for "
						.. "torch {adapter} only. Install the CPU wheel of torch, then the matching torch_npu and torchvision_npu.", a)
				elseif use then
					f.suggestion = _("No maintained torch_npu release ({versions}) has a Torchvision Adapter build (torch "
						.. "{adapter}), and `{op}` ({where}) runs on NPU tensors only through the adapter: plan to run it on the "
						.. "CPU, or pin an older torch with both and accept an unmaintained torch_npu.", a)
				elseif #fit > 0 then
					f.suggestion = _("Pin torch to a version that satisfies `{spec}` and has a torch_npu release ({fit}), install the CPU wheel of torch, then the matching torch_npu.", a)
				else
					f.suggestion = _("No maintained torch_npu release is for a PyTorch version that satisfies `{spec}` (they are for {versions}): move the project to one of those versions, then pin it.", a)
				end
			elseif use and not tvops.adapter_for(ctx, base) then
				-- whatever torch_npu offers for this version, the adapter has no build for it
				f.severity = "warning"
				f.message = _("PyTorch {torch} has no Torchvision Adapter build (it is built for torch {adapter}), and "
					.. "`{op}` ({where}) runs on NPU tensors only through the adapter.", a)
				f.suggestion = #both > 0
					and _("Move to a torch version with both a maintained torch_npu release and an adapter build ({both}), "
						.. "or run the operator on the CPU (its inputs moved with `.cpu()` and the result back).", a)
					or _("Run the operator on the CPU (its inputs moved with `.cpu()` and the result back): no maintained "
						.. "torch_npu release has an adapter build.", a)
				f.data = { torch = base }
			else
				local best, eol
				for _i, r in ipairs(rows) do
					if r.torch == base then
						if r.status == "active" then best = best or r else eol = eol or r end
					end
				end
				if best then
					f.severity = "info"
					a.torch_npu, a.cann = best.torch_npu, best.cann
					if best.python then
						a.python = table.concat(best.python, ", ")
						f.message = _("PyTorch {torch} pairs with torch_npu {torch_npu} and CANN {cann} (Python {python}).", a)
					else
						f.message = _("PyTorch {torch} pairs with torch_npu {torch_npu} and CANN {cann}.", a)
					end
					f.suggestion = _("Install the CPU wheel of torch {torch}, then torch_npu {torch_npu}, on a host with CANN {cann}.", a)
				elseif eol then
					a.torch_npu, a.cann = eol.torch_npu, eol.cann
					f.message = _("PyTorch {torch} only has end-of-life torch_npu releases (latest listed: {torch_npu} with CANN {cann}).", a)
					f.suggestion = _("Plan an upgrade to a maintained PyTorch version ({versions}) or accept an unmaintained torch_npu {torch_npu}.", a)
				else
					f.message = _("There is no torch_npu release for PyTorch {torch}.", a)
					f.suggestion = _("Move the project to a PyTorch version with a torch_npu release ({versions}) before migrating.", a)
				end
				f.data = { torch = base }
			end
			ctx.report(f)
		end
	end,
}
