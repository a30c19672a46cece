-- assess.jit_script: TorchScript scripting, which automatic migration switches off.

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

local NAMES = {
	["torch.jit.script"] = true,
	["torch.jit.script_method"] = true,
}

return {
	id = "assess.jit_script",
	phase = "assess",
	title = "torch.jit.script (conflicts with automatic migration)",
	severity = "warning",
	category = "jit",
	description = "Finds torch.jit.script and torch.jit.script_method, as calls or decorators. "
		.. "Automatic migration (transfer_to_npu) disables both: they return the object unscripted, "
		.. "so code that needs a ScriptModule breaks. Projects that rely on scripting should use "
		.. "tool-based migration or remove the scripting.",
	triggers = { "jit", "script" },
	run = function(ctx)
		for _, path in ipairs(ctx.python_files()) do
			local map = aliases(ctx, path)
			for _, r in ipairs(dotted_refs(ctx, path, map)) do
				if NAMES[r.resolved] then
					ctx.report{
						file = path, node = r.node,
						message = "`" .. r.text .. "` compiles TorchScript; automatic migration (transfer_to_npu) turns it into a no-op.",
						suggestion = "If the scripted object is only an optimisation, remove the scripting; if the code needs a real ScriptModule (saving, export), plan tool-based migration instead of transfer_to_npu.",
					}
				end
			end
		end
	end,
}
