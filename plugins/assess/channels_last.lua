-- assess.channels_last: the channels_last memory format.

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
	id = "assess.channels_last",
	phase = "assess",
	title = "channels_last memory format",
	severity = "warning",
	category = "layout",
	description = "Finds torch.channels_last and torch.channels_last_3d. The channels_last memory "
		.. "format is not supported by automatic migration; the vendor's advice is to use "
		.. ".contiguous() instead.",
	triggers = { "channels_last" },
	run = function(ctx)
		for _, path in ipairs(ctx.python_files()) do
			local map = aliases(ctx, path)
			for _, r in ipairs(dotted_refs(ctx, path, map)) do
				if r.resolved == "torch.channels_last" or r.resolved == "torch.channels_last_3d" then
					ctx.report{
						file = path, node = r.node,
						message = "`" .. r.text .. "` selects the channels_last memory format, which automatic migration does not support.",
						suggestion = "Drop the memory_format argument and use `.contiguous()` (the default layout) on the NPU.",
					}
				end
			end
		end
	end,
}
