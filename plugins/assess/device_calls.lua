-- assess.device_calls: code that puts tensors and modules on a CUDA device.

local refs = require("refs")
local cuda = require("cuda")

return {
	id = "assess.device_calls",
	phase = "assess",
	title = _("CUDA device placement (.cuda(), 'cuda' device strings)"),
	severity = "warning",
	category = "device",
	description = _("Finds .cuda() calls and device strings such as 'cuda', 'cuda:0', f'cuda:{rank}' or "
		.. "'cuda:%d' % i. On Ascend the device is 'npu' and the method is .npu(), available once "
		.. "torch_npu is imported. Each site is a mechanical rewrite. A folder named cuda in a path "
		.. "(os.path.join(home, 'cuda', 'bin'), Path(prefix) / 'cuda', a CUDA_HOME value) is the CUDA "
		.. "toolkit's, not a device, and is not reported."),
	triggers = { "cuda" },
	run = function(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			refs.report_all(ctx, cuda.cuda_calls(ctx, path), "survey")
			refs.report_all(ctx, cuda.device_strings(ctx, path, refs.aliases(ctx, path)), "survey")
		end
	end,
}
