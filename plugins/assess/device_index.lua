-- assess.device_index: bare integer device indices, which PyTorch reads as CUDA devices
-- (lib/devindex.lua finds them; adapt.device_index rewrites those it can).

local devindex = require("devindex")
local refs = require("refs")

return {
	id = "assess.device_index",
	phase = "assess",
	title = _("Bare integer device index (.to(0), device=1, torch.device(rank))"),
	severity = "warning",
	category = "device",
	description = _("PyTorch reads an integer where a device is expected as a CUDA device index: `x.to(0)`, "
		.. "`torch.zeros(2, device=rank)` and `torch.device(local_rank)` all ask for a GPU. Reports such "
		.. "indices written as literals, as names the file binds to integers, as argparse options "
		.. "declared with type=int, or as the usual names of a device index (rank, local_rank, gpu). "
		.. "On Ascend the device is named: `npu:N`."),
	triggers = { ".to(", "device=", "device(" },
	run = function(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			refs.report_all(ctx, devindex.sites(ctx, path), "survey")
		end
	end,
}
