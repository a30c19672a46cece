-- assess.cuda_apis: torch.cuda.* calls and attributes, classified by the mapping table.

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

-- The table entry for a torch.cuda name: the exact name, else its longest listed prefix.
local function lookup(index, name)
	local n = name
	while n do
		if index[n] then return index[n] end
		n = n:match("^(.*)%.[^%.]+$")
	end
	return nil
end

return {
	id = "assess.cuda_apis",
	phase = "assess",
	title = "torch.cuda APIs and their NPU equivalents",
	severity = "warning",
	category = "device",
	description = "Finds every use of torch.cuda (also through `import torch.cuda as tc` or "
		.. "`from torch import cuda`) and looks it up in cuda_api_map.json: most names exist as "
		.. "torch.npu.X once torch_npu is imported; some work with caveats; a few have no NPU "
		.. "equivalent and need the code redesigned.",
	triggers = { "cuda" },
	run = function(ctx)
		local index = {}
		for _, e in ipairs(ctx.data("cuda_api_map").entries) do index[e.name] = e end
		for _, path in ipairs(ctx.python_files()) do
			local map = aliases(ctx, path)
			for _, r in ipairs(dotted_refs(ctx, path, map)) do
				local name = r.resolved
				if name:sub(1, 11) == "torch.cuda." and name:sub(1, 15) ~= "torch.cuda.amp." then
					local e = lookup(index, name)
					local via = (r.text ~= name) and (" (written `" .. r.text .. "`)") or ""
					if e and e.owner and e.owner ~= "assess.cuda_apis" then
						-- reported by the owning check
					elseif e and e.status == "unsupported" then
						ctx.report{
							file = path, node = r.node, severity = "error",
							message = "`" .. name .. "`" .. via .. " has no NPU equivalent.",
							suggestion = "Rewrite this part without it: " .. (e.notes or "the vendor lists no torch_npu counterpart") .. ".",
							data = { api = name },
						}
					elseif e then
						local suffix = name:sub(12)
						local edits
						local literal = r.node.text:sub(1, 11) == "torch.cuda."
						local plain_rename = e.npu == "torch_npu.npu." .. e.name:sub(12) or e.npu == "torch.npu." .. e.name:sub(12)
						if literal and plain_rename then
							edits = { { start_byte = r.node.start_byte + 6, end_byte = r.node.start_byte + 10, text = "npu" } }
						end
						local target = e.npu
						if e.name ~= name then target = e.npu .. name:sub(#e.name + 1) end
						local how = "Use `" .. target:gsub("^torch_npu%.npu%.", "torch.npu.") .. "` (after `import torch_npu`)"
						if not literal and r.text ~= name then
							how = how .. "; change the import that binds `" .. r.text:match("^[%a_][%w_]*") .. "` to torch.npu"
						end
						if e.notes then how = how .. "; note: " .. e.notes end
						ctx.report{
							file = path, node = r.node,
							severity = (e.status == "limited") and "warning" or nil,
							message = "`" .. name .. "`" .. via .. " is a CUDA API; the NPU equivalent is `" .. target .. "`"
								.. ((e.status == "limited") and " (with a caveat)." or "."),
							suggestion = how .. ".",
							edits = edits,
							data = { api = name, suffix = suffix },
						}
					else
						ctx.report{
							file = path, node = r.node,
							message = "`" .. name .. "`" .. via .. " is a CUDA API that the mapping table does not list.",
							suggestion = "Check torch_npu's torch.cuda support list for an NPU form of this API before migrating; if there is none, remove or replace the call.",
							data = { api = name },
						}
					end
				end
			end
		end
	end,
}
