-- adapt.device_index: bare integer devices -> named NPU devices.

local cuda = require("cuda")
local devindex = require("devindex")
local refs = require("refs")

return {
	id = "adapt.device_index",
	phase = "adapt",
	title = _("Name the NPU where the code gives a bare integer device (.to(0), torch.device(rank))"),
	severity = "warning",
	category = "device",
	description = _("PyTorch reads an integer given as a device as a CUDA device index. Rewrites `x.to(N)` "
		.. "as `x.to(\"npu:N\")` for a literal and `x.to(torch.device(\"npu\", N))` for a name (an index "
		.. "of None then still works), and `torch.device(N)` as `torch.device(\"npu\", N)`. An integer "
		.. "given as device= is listed for a human: the callee may be the project's own function that "
		.. "takes an integer. With the automatic strategy (transfer_to_npu) nothing is rewritten."),
	triggers = { ".to(", "device=", "device(" },
	run = function(ctx)
		if cuda.auto(ctx) then return end
		for _i, path in ipairs(ctx.python_files()) do
			refs.report_all(ctx, devindex.sites(ctx, path), "fix")
		end
	end,
}
