-- tune.fused_optimizer: torch.optim optimizers that torch_npu offers fused.
--
-- torch_npu.optim exports NpuFused* versions of the common optimizers; Ascend's migration
-- tool and the profiling advisor both recommend them (plugins/data/affinity_apis.json,
-- kind "optimizer"; apex's fused optimizers are the adapt phase's business).

local py = require("py")

local function optimizers(data)
	local out = {}
	for _i, e in ipairs(data("affinity_apis").entries) do
		if e.kind == "optimizer" and e.original:match("^torch%.optim%.[%w_]+$") then out[e.original] = e end
	end
	return out
end

return {
	id = "tune.fused_optimizer",
	phase = "tune",
	title = _("Optimizers with a fused NPU version"),
	severity = "info",
	category = "performance",
	description = _("torch_npu.optim.NpuFusedAdamW, NpuFusedAdam, NpuFusedSGD … update all parameters in a "
		.. "few fused operators instead of several small operators per parameter tensor, which makes "
		.. "the optimizer step much faster on the NPU (at the cost of extra device memory). Reports the "
		.. "torch.optim constructors that have such a counterpart."),
	triggers = function(data)
		local t = {}
		for name in pairs(optimizers(data)) do t[#t + 1] = name:match("([%w_]+)$") .. "(" end
		table.sort(t)
		return t
	end,
	run = function(ctx)
		local table_ = optimizers(ctx.data)
		for _i, path in ipairs(ctx.python_files()) do
			local map = py.aliases(ctx, path) or {}
			for _i, c in ipairs(py.calls(ctx, path, table_, map) or {}) do
				local e = table_[c.name]
				if e then
					local short = e.replacement:match("([%w_]+)$")

					ctx.report{
						file = path, node = c.call,
						message = e.notes
							and _("`{text}` has a fused NPU version, {replacement} ({note}).", { text = c.func.text, replacement = e.replacement, note = _(e.notes) })
							or _("`{text}` has a fused NPU version, {replacement}.", { text = c.func.text, replacement = e.replacement }),
						suggestion = _("Construct `{replacement}` with the same arguments (`from torch_npu.optim import {short}`) and compare step time and memory; keep the original if device memory is tight.", { replacement = e.replacement, short = short }),
						data = { replacement = e.replacement, source = e.source },
					}
				end
			end
		end
	end,
}
