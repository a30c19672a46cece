-- adapt.device_type_branches: device.type == 'cuda', device.type in ('cuda',) and .is_cuda for the NPU.

local refs = require("refs")
local cuda = require("cuda")

return {
	id = "adapt.device_type_branches",
	phase = "adapt",
	title = _("Branches on the device type ('cuda' comparisons, .is_cuda)"),
	severity = "warning",
	category = "device",
	description = _("Rewrites comparisons of a device with 'cuda' (device.type == 'cuda', 'cuda' in "
		.. "str(device), device.startswith('cuda:')) to compare with 'npu', and t.is_cuda to t.is_npu. In a package "
		.. "others import, which must still run on GPUs, the comparison lets 'npu' in beside 'cuda' "
		.. "(device.type in ('cuda', 'npu')); a test against a tuple of device types (device.type in ('cuda',)) "
		.. "gets 'npu' added. Automatic migration "
		.. "does not change these, so they are rewritten with either strategy. A comparison whose "
		.. "other side is not clearly a device, or that turns a CUDA feature on (fused_available and "
		.. "device_type == 'cuda'), is listed for a human."),
	triggers = { "cuda" },
	run = function(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			refs.report_all(ctx, cuda.device_branches(ctx, path), "fix")
		end
	end,
}
