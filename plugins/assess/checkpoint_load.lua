-- assess.checkpoint_load: torch.load without map_location.
--
-- torch.load puts each tensor back on the device it was saved from unless map_location
-- says otherwise (PyTorch's torch.load documentation), so a checkpoint the GPU run wrote
-- holds CUDA tensors, and on the NPU host, which has no CUDA, loading it fails with
-- "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is
-- False". The vendor's migration tool lists the same failure and fix in its FAQ (add
-- map_location='npu' or 'cpu' to torch.load; reference: ascend-toolchain §2.6). Resuming or
-- evaluating the GPU-trained checkpoint is a usual first step of a migration (pytorch/examples'
-- imagenet: `torch.load(args.resume)`). A load of the file the same program saves with
-- torch.save (the same argument text, `torch.save(model, f)` ... `torch.load(f)`) reads what
-- was written on the host it runs on, and is not reported.

local py = require("py")
local train = require("train")

local LOADS = { ["torch.load"] = true }
local SAVES = { ["torch.save"] = true }
-- torch.load(f, map_location=None, ...)
local POS_MAP_LOCATION = 2

-- The argument texts the file's torch.save calls write to (their second argument), as a set.
local function saved_targets(ctx, path, map, args_of)
	local out = {}
	for _i, c in ipairs(py.calls(ctx, path, SAVES, map) or {}) do
		local a = args_of(c.call)
		local target = a.kw.f or a.pos[2]
		if target then out[target.text] = true end
	end
	return out
end

return {
	id = "assess.checkpoint_load",
	phase = "assess",
	title = _("torch.load without map_location"),
	severity = "warning",
	category = "device",
	description = _("Finds torch.load calls that give no map_location. torch.load puts each tensor back on "
		.. "the device it was saved from, so a checkpoint written by the GPU run holds CUDA tensors and "
		.. "cannot be loaded on the NPU host, which has no CUDA. A load of the file the same program "
		.. "saves with torch.save is not reported."),
	triggers = { "load" },
	run = function(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			local map = py.aliases(ctx, path) or {}
			local loads = py.calls(ctx, path, LOADS, map) or {}
			local args_of = #loads > 0 and train.all_call_args(ctx, path)
			local saved = args_of and saved_targets(ctx, path, map, args_of)
			for _j, c in ipairs(loads) do
				local a = args_of(c.call)
				local source = a.kw.f or a.pos[1]
				if not (a.kw.map_location or a.pos[POS_MAP_LOCATION] or a.splat)
					and not (source and saved[source.text]) then
					ctx.report{
						file = path, node = c.call,
						message = _("`{code}` gives no map_location, so the tensors come back on the device they were saved from: a checkpoint written by the GPU run holds CUDA tensors, and on the NPU host loading it fails (\"Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False\").",
							{ code = c.call.text:match("^[^\n]*") }),
						suggestion = _("Pass `map_location=\"cpu\"` (load_state_dict then copies the weights to the model's device) or the device the code runs on (`map_location=device`); tensors the code uses straight from the checkpoint then need moving to that device."),
					}
				end
			end
		end
	end,
}
