-- assess.torch_compile: torch.compile and the torch.compiler API.

local refs = require("refs")

return {
	id = "assess.torch_compile",
	phase = "assess",
	title = _("torch.compile / torch.compiler"),
	severity = "warning",
	category = "compile",
	description = _("Finds torch.compile (call or decorator) and torch.compiler.*. On GPUs Inductor "
		.. "generates Triton kernels; under transfer_to_npu Triton is reported unavailable, "
		.. "torch.compiler.* is on the vendor's unsupported list, and NPU compilation goes through "
		.. "torch_npu's own Inductor backend. Migrate in eager mode first."),
	-- naming torch.compile or torch.compiler, however imported, spells out both words
	triggers = { { "torch", "compile" } },
	run = function(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			local map = refs.aliases(ctx, path)
			for _i, r in ipairs(refs.dotted(ctx, path, map)) do
				local name = r.resolved
				if name == "torch.compile" then
					ctx.report{
						file = path, node = r.node,
						message = _("`{api}` compiles the model with Inductor, which generates Triton kernels for GPUs.", { api = r.text }),
						suggestion = _("Run the model eagerly first (remove or disable torch.compile), then revisit compilation in the tune phase with torch_npu's Inductor backend."),
					}
				elseif name:match("^torch%.compiler%.[%w_]+$") then
					ctx.report{
						file = path, node = r.node,
						message = _("`{api}` is part of torch.compiler, which the vendor lists as unsupported on NPU.", { api = r.text }),
						suggestion = _("Remove it while migrating in eager mode; revisit compilation in the tune phase."),
					}
				end
			end
		end
	end,
}
