-- assess.attention_kernels: fused attention and its CUDA backend switches.

local refs = require("refs")

return {
	id = "assess.attention_kernels",
	phase = "assess",
	title = _("Attention kernels (scaled_dot_product_attention, CUDA SDP backends)"),
	severity = "info",
	category = "attention",
	description = _("Finds F.scaled_dot_product_attention, whose NPU-optimised counterpart is "
		.. "torch_npu.npu_fusion_attention, and the torch.backends.cuda SDP switches "
		.. "(sdp_kernel, enable_flash_sdp, ...), which are on the vendor's unsupported list."),
	triggers = { "scaled_dot_product_attention", "sdp" },
	run = function(ctx)
		local repl = "torch_npu.npu_fusion_attention"
		for _i, e in ipairs(ctx.data("affinity_apis").entries) do
			if e.original == "torch.nn.functional.scaled_dot_product_attention" then repl = e.replacement end
		end
		local unsupported = {}
		for _i, e in ipairs(ctx.data("unsupported_ops").entries) do
			if e.owner == "assess.attention_kernels" then unsupported[e.name] = true end
		end
		for _i, path in ipairs(ctx.python_files()) do
			local map = refs.aliases(ctx, path)
			for _i, r in ipairs(refs.dotted(ctx, path, map)) do
				local name = r.resolved
				if name == "torch.nn.functional.scaled_dot_product_attention" then
					ctx.report{
						file = path, node = r.node,
						message = _("`{api}` computes attention; on NPU the fused kernel is `{fused}`.", { api = r.text, fused = repl }),
						suggestion = _("Keep it for the first NPU run; when tuning speed, replace it with `{fused}` (it takes head_num and an input_layout such as 'BNSD').", { fused = repl }),
					}
				elseif unsupported[name] then
					ctx.report{
						file = path, node = r.node, severity = "warning",
						message = _("`{api}` selects CUDA attention backends; it is on the vendor's unsupported list.", { api = r.text }),
						suggestion = _("Remove it: NPU attention does not use CUDA's flash/memory-efficient backends (use {fused} for a fused kernel).", { fused = repl }),
					}
				end
			end
		end
	end,
}
