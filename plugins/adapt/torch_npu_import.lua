-- adapt.torch_npu_import: `import torch_npu` (or transfer_to_npu) where the code needs it.

local refs = require("refs")
local cuda = require("cuda")

-- 1 when the file has something the NPU rewrites touch (so it needs torch_npu loaded).
local function needs_npu(ctx, path, index, fused)
	local map = refs.aliases(ctx, path)
	local lists = {
		cuda.cuda_calls(ctx, path), cuda.cuda_apis(ctx, path, index, map),
		cuda.amp(ctx, path, fused, map), cuda.device_branches(ctx, path),
		cuda.device_strings(ctx, path, map), cuda.backend(ctx, path, map),
	}
	for _i, l in ipairs(lists) do
		for _i, s in ipairs(l) do
			if s.edits and #s.edits > 0 then return true end
		end
	end
	return false
end

return {
	id = "adapt.torch_npu_import",
	phase = "adapt",
	title = _("import torch_npu (or transfer_to_npu in entry scripts)"),
	severity = "warning",
	category = "device",
	description = _("Inserts `import torch_npu` once, right after `import torch` (or before the "
		.. "first torch import when another one comes first), in every file the NPU rewrites "
		.. "touch: torch.npu, .npu() and the 'npu' device exist only once torch_npu is loaded. "
		.. "The line ending of the file is kept. With `ferry config strategy auto` it inserts "
		.. "`from torch_npu.contrib import transfer_to_npu` into the entry scripts instead, which "
		.. "maps CUDA calls to the NPU at run time."),
	run = function(ctx)
		local auto = cuda.auto(ctx)
		local index = cuda.api_index(ctx)
		local fused = cuda.apex_fused(ctx)
		for _i, path in ipairs(ctx.files("%.py$")) do
			-- cheap prefilter before parsing: only files that can need the import
			local text = ctx.read(path) or ""
			local relevant
			if auto then
				relevant = text:find("__main__", 1, true)
			else
				relevant = text:find("cuda", 1, true) or text:find("nccl", 1, true)
			end
			local plan = relevant and cuda.import_plan(ctx, path)
			local site
			if plan and auto and plan.main then
				site = cuda.insert_import(ctx, path, plan, true)
				if site then
					site.message = _("`{file}` is an entry script without `from torch_npu.contrib import transfer_to_npu`.", { file = path })
					site.suggestion = _("Import torch_npu and transfer_to_npu right after `import torch`: CUDA calls, device strings and the NCCL backend are then mapped to the NPU at run time.")
				end
			elseif plan and not auto and not plan.torch_npu and needs_npu(ctx, path, index, fused) then
				site = cuda.insert_import(ctx, path, plan, false)
				if site then
					site.message = _("`{file}` uses the NPU after migration but does not import torch_npu.", { file = path })
					site.suggestion = _("Add `import torch_npu` right after `import torch`; it registers torch.npu, .npu() and the 'npu' device.")
				end
			end
			if site then refs.report(ctx, site, "fix") end
		end
	end,
}
