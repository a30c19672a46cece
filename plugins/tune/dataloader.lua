-- tune.dataloader: DataLoader settings that starve the NPU.
--
-- msFmkTransplt's precision/performance advice (reference: ascend-toolchain §3.3): a
-- DataLoader with pin_memory=False should set pin_memory=True, and num_workers=0 should
-- be more than 0. Both defaults are the slow ones, so an argument left out counts too.
-- Values that are not literals (args.workers) are the user's choice and not reported.
-- A loader with worker processes that leaves persistent_workers at its default (False)
-- starts them again at every epoch: seed 001's optimised DataLoader (§3.1) and its
-- performance checklist keep them (persistent_workers=True). PyTorch refuses that option
-- with num_workers=0, so a worker count that is a variable gets `N > 0` as the value.

local project = require("project")
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
		for _i, path in ipairs(project.program_files(ctx)) do
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
				local persistent = a.kw.persistent_workers
				if workers and workers.text ~= "0" and not a.splat
					and (not persistent or persistent.text == "False") then
					local literal = workers.text:match("^%d+$")
					ctx.report{
						file = path, node = c.call, key = "persistent_workers",
						message = persistent
							and _("DataLoader: persistent_workers=False with num_workers={n}, so its worker processes are started again at every epoch.", { n = workers.text })
							or _("DataLoader: persistent_workers is not set with num_workers={n}, so its worker processes are started again at every epoch.", { n = workers.text }),
						suggestion = literal
							and _("Pass `persistent_workers=True`: the workers and their copy of the dataset stay up between epochs, which saves their start-up at each epoch on the NPU host.")
							or _("Pass `persistent_workers={n} > 0` (PyTorch refuses persistent_workers=True with no workers): the workers and their copy of the dataset stay up between epochs.", { n = workers.text }),
					}
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
