-- assess.torch_compile: torch.compile and the torch.compiler API.

local py = require("py")

-- Local name -> full dotted name bound by the file's imports ({tc = "torch.cuda"}).
local function aliases(ctx, path)
	return py.aliases(ctx, path) or {}
end

-- Dotted names used in code: outermost attribute chains (torch.cuda.synchronize) and
-- plain callees and decorators (autocast(...), @script), each {text=, node=, resolved=,
-- plain=}, in source order. Comments and strings never appear.
local function dotted_refs(ctx, path, map)
	local out = {}
	for _, a in ipairs(py.attributes(ctx, path) or {}) do
		out[#out + 1] = { text = a.text, node = a.node }
	end
	for _, m in ipairs(ctx.query(path, "(call function: (identifier) @f) (decorator (identifier) @f)") or {}) do
		out[#out + 1] = { text = m.f.text, node = m.f, plain = true }
	end
	for _, r in ipairs(out) do r.resolved = py.expand(map, r.text) end
	table.sort(out, function(a, b) return a.node.start_byte < b.node.start_byte end)
	return out
end

return {
	id = "assess.torch_compile",
	phase = "assess",
	title = "torch.compile / torch.compiler",
	severity = "warning",
	category = "compile",
	description = "Finds torch.compile (call or decorator) and torch.compiler.*. On GPUs Inductor "
		.. "generates Triton kernels; under transfer_to_npu Triton is reported unavailable, "
		.. "torch.compiler.* is on the vendor's unsupported list, and NPU compilation goes through "
		.. "torch_npu's own Inductor backend. Migrate in eager mode first.",
	triggers = { "compile" },
	run = function(ctx)
		for _, path in ipairs(ctx.python_files()) do
			local map = aliases(ctx, path)
			for _, r in ipairs(dotted_refs(ctx, path, map)) do
				local name = r.resolved
				if name == "torch.compile" then
					ctx.report{
						file = path, node = r.node,
						message = "`" .. r.text .. "` compiles the model with Inductor, which generates Triton kernels for GPUs.",
						suggestion = "Run the model eagerly first (remove or disable torch.compile), then revisit compilation in the tune phase with torch_npu's Inductor backend.",
					}
				elseif name:match("^torch%.compiler%.[%w_]+$") then
					ctx.report{
						file = path, node = r.node,
						message = "`" .. r.text .. "` is part of torch.compiler, which the vendor lists as unsupported on NPU.",
						suggestion = "Remove it while migrating in eager mode; revisit compilation in the tune phase.",
					}
				end
			end
		end
	end,
}
