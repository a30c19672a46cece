-- tune.fused_optimizer: torch.optim optimizers that torch_npu offers fused.
--
-- torch_npu.optim exports NpuFused* versions of the common optimizers; Ascend's migration
-- tool and the profiling advisor both recommend them (plugins/data/affinity_apis.json,
-- kind "optimizer"; apex's fused optimizers are the adapt phase's business). A project that
-- has such an optimizer (or already an NpuFused* one) is also told where it clips gradients
-- with torch.nn.utils.clip_grad_norm_: the fused optimizers clip in one operator too
-- (optimizer.clip_grad_norm_fused_), which needs no list of parameter tensors.

local project = require("project")
local py = require("py")
local words = require("words")

local CLIP = "torch.nn.utils.clip_grad_norm_"

-- A loop over a model's parameters: `for p in model.parameters(): p.data.add_(p.grad, alpha=-lr)`.
local PARAM_LOOPS = [[
(for_statement left: (identifier) @p
  right: (call function: (attribute attribute: (identifier) @m (#eq? @m "parameters")))
  body: (block) @body) @loop
]]

-- Whether a loop body over parameter p updates p from its gradient in place (p.data.add_,
-- p.add_, p.data.sub_, p.data -=, p -=, reading p.grad): plain SGD written by hand.
local function sgd_by_hand(body, p)
	if not body:find(p .. ".grad", 1, true) then return false end
	for _i, form in ipairs({ ".data.add_(", ".add_(", ".data.sub_(", ".sub_(", ".data -=", ".data.copy_(" }) do
		if body:find(p .. form, 1, true) then return true end
	end
	return body:find("%f[%w_]" .. p .. "%s*%-=") ~= nil
end

-- Reports the loops of path that make plain SGD's update by hand (sgd_by_hand): torch.optim.SGD
-- makes the same update, and has a fused NPU version (sgd, its affinity_apis entry).
-- Returns whether there was one.
local function report_sgd_by_hand(ctx, path, sgd)
	local found = false
	for _j, m in ipairs(ctx.query(path, PARAM_LOOPS) or {}) do
		if sgd_by_hand(m.body.text, m.p.text) then
			found = true
			local a = { code = words.clip(m.loop.text:match("^[^\n]*"), 60), replacement = sgd.replacement }
			ctx.report{
				file = path, node = m.loop,
				message = _("This loop updates each parameter tensor from its gradient in Python (`{code}`): several small operators per tensor at every step. torch.optim.SGD makes the same update, and has a fused NPU version, {replacement}.", a),
				suggestion = _("Replace the loop with `torch.optim.SGD(model.parameters(), lr=lr)` (no momentum, no weight decay: the same update) and `optimizer.step()`, set `optimizer.param_groups[0][\"lr\"]` where the script changes lr, then construct `{replacement}` instead and compare the loss curve.", a),
				data = { replacement = sgd.replacement, source = sgd.source },
			}
		end
	end
	return found
end

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
		.. "torch.optim constructors that have such a counterpart, loops that update each parameter from "
		.. "its gradient by hand (plain SGD, which torch.optim.SGD does), and in a project with one (or with an "
		.. "NpuFused optimizer already) the clip_grad_norm_ calls that the fused optimizer's "
		.. "clip_grad_norm_fused_ does in one operator."),
	triggers = function(data)
		local t = {}
		for name in pairs(optimizers(data)) do t[#t + 1] = name:match("([%w_]+)$") .. "(" end
		t[#t + 1] = "clip_grad_norm_("
		t[#t + 1] = "NpuFused"
		t[#t + 1] = "parameters():"
		table.sort(t)
		return t
	end,
	run = function(ctx)
		local table_ = optimizers(ctx.data)
		-- the constructors to report, the fused ones already used, and the clipping calls
		local wanted, fused, clip = { [CLIP] = true }, {}, nil
		for name in pairs(table_) do wanted[name] = true end
		for _i, e in ipairs(ctx.data("affinity_apis").entries) do
			if e.kind == "optimizer" and e.replacement:match("^torch_npu%.optim%.") then
				wanted[e.replacement], fused[e.replacement] = true, true
			end
			if e.original == CLIP then clip = e end
		end
		local fusable, clips = false, {}
		local sgd = table_["torch.optim.SGD"]
		for _i, path in ipairs(project.program_files(ctx)) do
			-- in the same pass over the file as its calls: its tree is parsed once
			if sgd and report_sgd_by_hand(ctx, path, sgd) then fusable = true end
			local map = py.aliases(ctx, path) or {}
			for _i, c in ipairs(py.calls(ctx, path, wanted, map) or {}) do
				local e = table_[c.name]
				if fused[c.name] then
					fusable = true
				elseif c.name == CLIP then
					clips[#clips + 1] = { path = path, call = c.call, text = c.func.text }
				elseif e then
					fusable = true
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
		if not fusable then return end
		for _i, c in ipairs(clips) do
			ctx.report{
				file = c.path, node = c.call,
				message = _("`{text}` clips the gradients with small operators over every parameter tensor; with a torch_npu NpuFused optimizer, `{fused}` clips them in one operator.",
					{ text = c.text, fused = clip.replacement }),
				suggestion = _("After switching to the NpuFused optimizer, call `optimizer.clip_grad_norm_fused_(max_norm)` in place of `{text}(model.parameters(), max_norm)`: the fused optimizer knows its parameters. Keep the same max_norm and compare the loss again.",
					{ text = c.text }),
				data = { replacement = clip.replacement, source = clip.source },
			}
		end
	end,
}
