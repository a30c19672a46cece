-- adapt.amp: torch.cuda.amp and autocast('cuda') for the NPU; apex and amp_C for a human.

local refs = require("refs")
local cuda = require("cuda")

return {
	id = "adapt.amp",
	phase = "adapt",
	title = _("Mixed precision on the NPU (torch.npu.amp, autocast('npu'))"),
	severity = "warning",
	category = "amp",
	description = _("Rewrites `from torch.cuda.amp import ...` to import from torch_npu.npu.amp, "
		.. "torch.cuda.amp.X to torch.npu.amp.X, and autocast/GradScaler created for 'cuda' "
		.. "(positional or device_type=) to 'npu'. apex.amp, apex fused optimizers and amp_C "
		.. "have no mechanical rewrite and are listed for a human (amp_C as an error). With the "
		.. "automatic strategy only those are listed."),
	triggers = cuda.AMP_TRIGGERS,
	run = function(ctx)
		local fused = cuda.apex_fused(ctx)
		local auto = cuda.auto(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			for _i, site in ipairs(cuda.amp(ctx, path, fused, refs.aliases(ctx, path))) do
				if not auto or site.human then refs.report(ctx, site, "fix") end
			end
		end
	end,
}
