-- assess.torch_compile: torch.compile and the torch.compiler API.

local refs = require("refs")
local train = require("train")

-- Start bytes of the callees of calls that pass backend="eager" or "aot_eager".
local EAGER = [[
(call function: (_) @f arguments: (argument_list (keyword_argument name: (identifier) @k value: (string) @v))
 (#eq? @k "backend") (#match? @v "^[rRuU]?[\"'](aot_)?eager[\"']$"))
]]
local function eager_compiles(ctx, path)
	local out = {}
	for _i, m in ipairs(ctx.query(path, EAGER) or {}) do out[m.f.start_byte] = true end
	return out
end

return {
	id = "assess.torch_compile",
	phase = "assess",
	title = _("torch.compile / torch.compiler"),
	severity = "warning",
	category = "compile",
	description = _("Finds torch.compile (call or decorator) and the torch.compiler functions the vendor "
		.. "lists as unsupported on NPU (compile, reset, allow_in_graph, assume_constant_result, "
		.. "list_backends, disable). On GPUs Inductor generates Triton kernels; under transfer_to_npu "
		.. "Triton is reported unavailable, and NPU compilation goes through torch_npu's own Inductor "
		.. "backend. Migrate in eager mode first. torch.compile with backend=\"eager\" or "
		.. "\"aot_eager\" runs the model eagerly and is left alone, as are questions such as "
		.. "torch.compiler.is_compiling(). A call under `if NAME:` whose module-level NAME is only ever "
		.. "False, or under `if args.NAME:` of an option off unless given (store_true, or a default of None or False), runs only when turned on: info, no effort."),
	-- naming torch.compile or torch.compiler, however imported, spells out both words
	triggers = { { "torch", "compile" } },
	run = function(ctx)
		-- the torch.compiler members the vendor lists as unsupported (unsupported_ops.json
		-- leaves them to this check); the others (is_compiling ...) only ask a question
		local listed = {}
		for _i, e in ipairs(ctx.data("unsupported_ops").entries) do
			if e.owner == "assess.torch_compile" then listed[e.name] = true end
		end
		for _i, path in ipairs(ctx.python_files()) do
			local map = refs.aliases(ctx, path)
			local eager = nil
			for _i, r in ipairs(refs.dotted(ctx, path, map)) do
				local name = r.resolved
				if name == "torch.compile" then
					-- backend="eager"/"aot_eager" trace the model and run it eagerly: no
					-- Inductor, no Triton, nothing to migrate
					eager = eager or eager_compiles(ctx, path)
					local off = not eager[r.node.start_byte] and train.off_by_default(ctx, path, r.node)
					if off then
						ctx.report{
							file = path, node = r.node, severity = "info",
							message = _("`{api}` runs only when a setting turns it on, and it is off by default ({off}); turned on, it compiles the model with Inductor, which generates Triton kernels for GPUs.", { api = r.text, off = off }),
							suggestion = _("Leave it off on the NPU while migrating; revisit compilation in the tune phase with torch_npu's Inductor backend."),
						}
					elseif not eager[r.node.start_byte] then
						ctx.report{
							file = path, node = r.node,
							message = _("`{api}` compiles the model with Inductor, which generates Triton kernels for GPUs.", { api = r.text }),
							suggestion = _("Run the model eagerly first (remove or disable torch.compile), then revisit compilation in the tune phase with torch_npu's Inductor backend."),
						}
					end
				elseif listed[name] then
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
