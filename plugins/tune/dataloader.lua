-- tune.dataloader: DataLoader settings that starve the NPU.
--
-- msFmkTransplt's precision/performance advice (reference: ascend-toolchain §3.3): a
-- DataLoader with pin_memory=False should set pin_memory=True, and num_workers=0 should
-- be more than 0. Both defaults are the slow ones, so an argument left out counts too.
-- Values that are not literals (args.workers) are the user's choice and not reported.

local py = require("py")
local train = require("train")

local LOADERS = { ["torch.utils.data.DataLoader"] = true, ["torch.utils.data.dataloader.DataLoader"] = true }
-- DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers, collate_fn, pin_memory, …)
local POS_WORKERS, POS_PIN = 6, 8

return {
	id = "tune.dataloader",
	phase = "tune",
	title = _("DataLoader without pinned memory or worker processes"),
	severity = "info",
	category = "performance",
	description = _("Host-side data loading often decides NPU throughput. Ascend's migration tool advises "
		.. "pin_memory=True (page-locked host memory makes the copy to the device asynchronous) and "
		.. "num_workers > 0 (batches are prepared in parallel while the NPU computes). Reports "
		.. "torch.utils.data.DataLoader calls that leave either at its slow default or set it to the "
		.. "slow value literally."),
	triggers = { "DataLoader" },
	run = function(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			local map = py.aliases(ctx, path) or {}
			local args_of
			for _i, c in ipairs(py.calls(ctx, path, LOADERS, map) or {}) do
				args_of = args_of or train.all_call_args(ctx, path)
				local a = args_of(c.call)
				local workers = a.kw.num_workers or a.pos[POS_WORKERS]
				local pin = a.kw.pin_memory or a.pos[POS_PIN]
				local problems = {}
				if not workers and not a.splat then
					problems[#problems + 1] = _("num_workers is not set (default 0: batches are loaded in the training process)")
				elseif workers and workers.text == "0" then
					problems[#problems + 1] = _("num_workers=0 loads batches in the training process")
				end
				if not pin and not a.splat then
					problems[#problems + 1] = _("pin_memory is not set (default False)")
				elseif pin and pin.text == "False" then
					problems[#problems + 1] = _("pin_memory=False")
				end
				if #problems > 0 then
					ctx.report{
						file = path, node = c.call,
						message = #problems == 2
							and _("DataLoader: {first}; {second}, so the NPU may wait for data.", { first = problems[1], second = problems[2] })
							or _("DataLoader: {first}, so the NPU may wait for data.", { first = problems[1] }),
						suggestion = _("Pass `pin_memory=True` and `num_workers=N` (N > 0, e.g. the CPU cores per card, commonly 4–8) so batches are prepared while the NPU computes."),
					}
				end
			end
		end
	end,
}
