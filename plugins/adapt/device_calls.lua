-- adapt.device_calls: .cuda() -> .npu() and 'cuda' device strings -> 'npu'.

local refs = require("refs")
local cuda = require("cuda")

return {
	id = "adapt.device_calls",
	phase = "adapt",
	title = _("Move tensors and modules to the NPU (.npu(), 'npu' device strings)"),
	severity = "warning",
	category = "device",
	description = _("Rewrites x.cuda(...) as x.npu(...) with the same arguments, and 'cuda' device "
		.. "strings as 'npu' where the code uses them as devices: torch.device('cuda', i), "
		.. ".to('cuda:0'), device=, map_location=, f'cuda:{rank}', 'cuda:%d' % i, the default of a "
		.. "--device option, and variables later used as devices. Strings that only look like a "
		.. "device (messages, names) are listed for a human, never edited. With the automatic "
		.. "strategy (transfer_to_npu) nothing is rewritten: transfer_to_npu does it at run time."),
	triggers = { "cuda" },
	run = function(ctx)
		if cuda.auto(ctx) then return end
		local n = 0
		for _i, path in ipairs(ctx.python_files()) do
			n = n + refs.report_all(ctx, cuda.cuda_calls(ctx, path), "fix")
			n = n + refs.report_all(ctx, cuda.device_strings(ctx, path, refs.aliases(ctx, path)), "fix")
		end
		ctx.metric("device_rewrites", n, "sites")
	end,
}
