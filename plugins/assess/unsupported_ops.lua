-- assess.unsupported_ops: torch APIs the vendor lists as unsupported or limited on NPU.

local py = require("py")

-- Local name -> full dotted name bound by the file's imports ({tc = "torch.cuda"}).
local function aliases(ctx, path)
	return py.aliases(ctx, path) or {}
end

local function resolve(dotted, map)
	return py.expand(map, dotted)
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

local METHOD_QUERY = [[
(call function: (attribute object: (_) @obj attribute: (identifier) @m) arguments: (argument_list)) @call
]]

return {
	id = "assess.unsupported_ops",
	phase = "assess",
	title = "Operators and APIs unsupported or limited on NPU",
	severity = "error",
	category = "operators",
	description = "Looks up every torch API the code uses (through aliases such as nn and F) in "
		.. "unsupported_ops.json, the vendor's list of APIs that do not work on NPU for a given "
		.. "PyTorch version, plus dtype limits such as float64. Each hit needs a replacement "
		.. "before the model can run on the NPU.",
	triggers = { "torch", "nn", "F.", "double" },
	run = function(ctx)
		local names, methods = {}, {}
		for _, e in ipairs(ctx.data("unsupported_ops").entries) do
			if not e.owner then
				if e.kind == "method" then
					if not e.generic then methods[e.method] = e end
					names[e.name] = e
				else
					names[e.name] = e
				end
			end
		end
		local function report(path, node, text, e)
			local unsupported = e.status == "unsupported"
			local versions = (e.versions and #e.versions > 0) and (" (vendor list for PyTorch " .. table.concat(e.versions, ", ") .. ")") or ""
			ctx.report{
				file = path, node = node, severity = unsupported and "error" or "warning",
				message = "`" .. text .. "`" .. (text ~= e.name and (" (" .. e.name .. ")") or "") .. " is " .. (unsupported and "not supported" or "limited") .. " on NPU" .. versions .. ".",
				suggestion = e.notes and (e.notes:sub(1, 1):upper() .. e.notes:sub(2) .. ".")
					or "Replace it with supported operators (or run this part on the CPU) and verify the results against the GPU run.",
				data = { api = e.name },
			}
		end
		for _, path in ipairs(ctx.python_files()) do
			local map = aliases(ctx, path)
			local seen = {}
			for _, r in ipairs(dotted_refs(ctx, path, map)) do
				local e = names[r.resolved]
				if e then
					seen[r.node.start_byte] = true
					report(path, r.node, r.text, e)
				end
			end
			for _, m in ipairs(ctx.query(path, METHOD_QUERY) or {}) do
				local e = methods[m.m.text]
				if e and not seen[m.call.start_byte] and resolve(m.obj.text, map) ~= "torch" then
					report(path, m.call, "." .. m.m.text .. "()", e)
				end
			end
		end
	end,
}
