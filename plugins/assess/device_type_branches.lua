-- assess.device_type_branches: code paths chosen by comparing a device with 'cuda'.

local refs = require("refs")
local cuda = require("cuda")

return {
	id = "assess.device_type_branches",
	phase = "assess",
	title = _("Branches on the CUDA device type (device.type == 'cuda', .is_cuda)"),
	severity = "warning",
	category = "device",
	description = _("Finds comparisons with 'cuda' (device.type == 'cuda', 'cuda' in str(device)) and "
		.. "the .is_cuda attribute. On an NPU these are false, so the CUDA branch is silently "
		.. "skipped: pinned memory, AMP or synchronisation may stop happening without an error."),
	triggers = { "cuda" },
	run = function(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			refs.report_all(ctx, cuda.device_branches(ctx, path), "survey")
		end
	end,
}
