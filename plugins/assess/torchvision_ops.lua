-- assess.torchvision_ops: torchvision's compiled operators (nms, roi_align, ...) on NPU
-- tensors, driven by torchvision_npu.json.
--
-- torchvision ships kernels for the CPU and CUDA only. The vendor's Torchvision Adapter
-- (torchvision_npu) registers NPU kernels for some operators when it is imported; for the
-- others there is none. A use is judged with the program it belongs to: the adapter
-- imported by the script or anything it imports covers it.

local project = require("project")
local tvops = require("tvops")
local words = require("words")

return {
	id = "assess.torchvision_ops",
	phase = "assess",
	title = _("torchvision operators on NPU tensors (nms, roi_align, deform_conv2d)"),
	severity = "warning",
	category = "libraries",
	description = _("Finds torchvision's compiled operators (torchvision.ops: nms and batched_nms, roi_align, "
		.. "roi_pool, deform_conv2d and their modules; ps_roi_align, ps_roi_pool) however they are imported. "
		.. "torchvision has kernels for the CPU and CUDA only: on NPU tensors they need the vendor's Torchvision "
		.. "Adapter (`import torchvision_npu`, built for the project's torch and torchvision), unless the program "
		.. "imports it already; ps_roi_align and ps_roi_pool have no NPU kernel even with it (an error). "
		.. "Source: torchvision_npu.json."),
	triggers = function(data)
		local out = {}
		for _i, e in ipairs(data("torchvision_npu").entries) do out[#out + 1] = { "torchvision", e.name } end
		return out
	end,
	run = function(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			-- whether the program imports the adapter: asked only of a file that uses an operator
			local covered
			local function adapted()
				if covered == nil then covered = project.program_mentions(ctx, path, "torchvision_npu") or false end
				return covered
			end
			for _i, u in ipairs(tvops.uses(ctx, path)) do
				local e, r = u.entry, u
				if not (e.npu and adapted()) then
					local a = { api = words.api(r.text, r.resolved), kernel = e.kernel,
						notes = e.notes and _(e.notes), versions = tvops.versions_text(ctx) }
					if e.npu then
						ctx.report{
							file = path, node = r.node, key = "adapter:" .. e.kernel,
							message = _("{api} runs torchvision's `{kernel}` kernel, which torchvision has for the "
								.. "CPU and CUDA only; on NPU tensors it needs the Torchvision Adapter, which nothing in "
								.. "this program imports.", a),
							suggestion = e.notes
								and _("Install the Torchvision Adapter built for the project's torch and add "
									.. "`import torchvision_npu` after `import torchvision` in the entry script ({versions}). {notes}.", a)
								or _("Install the Torchvision Adapter built for the project's torch and add "
									.. "`import torchvision_npu` after `import torchvision` in the entry script ({versions}).", a),
						}
					else
						ctx.report{
							file = path, node = r.node, key = "no-npu:" .. e.kernel, severity = "error", category = "operators",
							message = _("{api} runs torchvision's `{kernel}` kernel, which has no NPU kernel, not "
								.. "even with the Torchvision Adapter.", a),
							suggestion = _("Run it on the CPU (move its inputs with `.cpu()` and the result back), or emulate it "
								.. "with an operator the NPU has: roi_align over every channel, then keep for each output bin "
								.. "the channel group that bin reads."),
						}
					end
				end
			end
		end
	end,
}
