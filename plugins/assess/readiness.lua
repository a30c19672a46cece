-- assess.readiness: a 0-100 readiness score, a class and an effort estimate.
--
-- Plugins cannot see each other's findings, so this check recounts the few signals that
-- drive the score itself: custom CUDA code, GPU-only libraries, constructs that block
-- automatic migration, and the number of mechanical rewrite sites.

local py = require("py")
local refs = require("refs")

local MECH_QUERY = [[
(call function: (attribute attribute: (identifier) @m (#eq? @m "cuda"))) @cuda_call
(attribute object: (identifier) @t attribute: (identifier) @c (#eq? @t "torch") (#eq? @c "cuda")) @torch_cuda
(string) @str
]]

local BLOCKERS = {
	["torch.jit.script"] = "torch.jit.script",
	["torch.nn.DataParallel"] = "DataParallel",
	["torch.nn.parallel.DataParallel"] = "DataParallel",
	["torch.utils.cpp_extension.load"] = "cpp_extension",
	["torch.utils.cpp_extension.load_inline"] = "cpp_extension",
	["torch.utils.cpp_extension.CUDAExtension"] = "cpp_extension",
	["torch.channels_last"] = "channels_last",
}

local function number(ctx, key, default)
	local v = tonumber(ctx.config(key) or "")
	return v or default
end

return {
	id = "assess.readiness",
	phase = "assess",
	title = "Migration readiness score and effort estimate",
	severity = "info",
	category = "summary",
	description = "Scores the project from 0 (hard) to 100 (ready for automatic migration) from "
		.. "custom CUDA code, GPU-only libraries, uses of APIs unsupported on NPU, constructs "
		.. "that block automatic migration (jit.script, DataParallel, channels_last, "
		.. "cpp_extension) and the number of mechanical rewrites, and estimates the effort in "
		.. "person-days. Weights: `ferry config effort.base_days N` and effort.weight.{custom_kernel, library, blocker, unsupported_api, mechanical}.",
	run = function(ctx)
		local libs = {}
		for _, e in ipairs(ctx.data("gpu_libraries").entries) do
			if e.status == "unsupported" or e.status == "replace" then libs[e.name] = true end
		end
		local unsupported = {}
		for _, e in ipairs(ctx.data("unsupported_ops").entries) do
			if e.status == "unsupported" and e.kind ~= "method" then unsupported[e.name] = true end
		end
		for _, e in ipairs(ctx.data("cuda_api_map").entries) do
			if e.status == "unsupported" then unsupported[e.name] = true end
		end
		local cu_files = #ctx.files("%.cuh?$")
		local unsupported_uses = 0
		local mech, blockers, blocker_kinds, used_libs = 0, 0, {}, {}
		for _, path in ipairs(ctx.files("%.py$")) do
			local map = refs.aliases(ctx, path)
			for _, imp in ipairs(py.imports(ctx, path) or {}) do
				local top = imp.module:match("^[%a_][%w_]*")
				if top and libs[top] then used_libs[top] = true end
			end
			for _, r in ipairs(refs.dotted(ctx, path, map)) do
				if unsupported[r.resolved] and not BLOCKERS[r.resolved] then
					unsupported_uses = unsupported_uses + 1
				end
				local b = BLOCKERS[r.resolved]
				if b then
					blockers = blockers + 1
					blocker_kinds[b] = true
				end
			end
			for _, m in ipairs(ctx.query(path, MECH_QUERY) or {}) do
				if m.cuda_call or m.torch_cuda then
					mech = mech + 1
				elseif m.str then
					local inner = m.str.text:gsub("^[rRbBuUfF]*[\"']+", ""):gsub("[\"']+$", "")
					if inner == "nccl" or inner:match("^cuda:?%d*$") or inner:match("^CUDA_VISIBLE_DEVICES$") then
						mech = mech + 1
					end
				end
			end
		end
		local nlibs, kinds = 0, 0
		for _ in pairs(used_libs) do nlibs = nlibs + 1 end
		for _ in pairs(blocker_kinds) do kinds = kinds + 1 end

		local score = 100
		score = score - math.min(40, 15 * cu_files)
		score = score - math.min(30, 10 * nlibs)
		score = score - math.min(20, 5 * kinds)
		score = score - math.min(15, 3 * unsupported_uses)
		score = score - math.min(10, mech // 10)
		if score < 0 then score = 0 end
		local class, class_n
		if score >= 80 then class, class_n = "ready", 1
		elseif score >= 50 then class, class_n = "moderate", 2
		else class, class_n = "hard", 3 end

		local days = number(ctx, "effort.base_days", 1)
			+ number(ctx, "effort.weight.custom_kernel", 3) * cu_files
			+ number(ctx, "effort.weight.library", 2) * nlibs
			+ number(ctx, "effort.weight.blocker", 0.5) * blockers
			+ number(ctx, "effort.weight.unsupported_api", 0.5) * unsupported_uses
			+ number(ctx, "effort.weight.mechanical", 0.02) * mech
		days = math.floor(days * 2 + 0.5) / 2

		ctx.metric("readiness_score", score, "points")
		ctx.metric("readiness_class", class_n, "1=ready 2=moderate 3=hard")
		ctx.metric("effort_days", days, "person-days")
		ctx.metric("mechanical_sites", mech, "sites")
		ctx.metric("custom_cuda_files", cu_files, "files")
		ctx.metric("gpu_only_libraries", nlibs, "libraries")
		ctx.metric("unsupported_api_uses", unsupported_uses, "sites")

		local parts = {}
		if cu_files > 0 then parts[#parts + 1] = cu_files .. " CUDA source file(s)" end
		if nlibs > 0 then parts[#parts + 1] = nlibs .. " GPU-only librar" .. (nlibs == 1 and "y" or "ies") end
		if unsupported_uses > 0 then parts[#parts + 1] = unsupported_uses .. " use(s) of APIs unsupported on NPU" end
		if blockers > 0 then parts[#parts + 1] = blockers .. " construct(s) that block automatic migration" end
		parts[#parts + 1] = mech .. " mechanical rewrite site(s)"
		local advice = {
			ready = "Try automatic migration first (import torch_npu and transfer_to_npu in the entry script), then fix what remains.",
			moderate = "Plan a tool-assisted migration: apply the mechanical rewrites with `ferry fix`, then handle the flagged libraries and constructs by hand.",
			hard = "Plan a manual migration: the custom CUDA kernels and GPU-only libraries must be replaced before anything runs on the NPU.",
		}
		ctx.report{
			message = "Readiness " .. score .. "/100 (" .. class .. "), about " .. days .. " person-days: " .. table.concat(parts, ", ") .. ".",
			suggestion = advice[class],
			key = "readiness",
		}
	end,
}
