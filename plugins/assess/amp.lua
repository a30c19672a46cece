-- assess.amp: mixed precision through torch.cuda.amp, autocast('cuda') and apex.

local refs = require("refs")
local cuda = require("cuda")

return {
	id = "assess.amp",
	phase = "assess",
	title = _("Mixed precision (torch.cuda.amp, autocast('cuda'), apex.amp, amp_C)"),
	severity = "warning",
	category = "amp",
	description = _("Finds torch.cuda.amp (autocast, GradScaler), autocast/GradScaler created for the "
		.. "'cuda' device, apex.amp, apex's CUDA kernel module amp_C and apex fused optimizers. "
		.. "torch.npu.amp provides autocast and GradScaler; amp_C is unsupported and apex fused "
		.. "optimizers are not migrated automatically."),
	triggers = cuda.AMP_TRIGGERS,
	run = function(ctx)
		local fused = cuda.apex_fused(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			refs.report_all(ctx, cuda.amp(ctx, path, fused, refs.aliases(ctx, path)), "survey")
		end
	end,
}
