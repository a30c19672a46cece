-- tvops: torchvision's compiled operators (torchvision.ops: nms, roi_align, ...) and the
-- vendor's Torchvision Adapter that gives some of them NPU kernels, from
-- torchvision_npu.json. Shared by the check that reports each use
-- (assess.torchvision_ops) and by every place that advises a torch version: the adapter
-- is built for a few torch versions only, so a project that needs it cannot move to a
-- torch_npu release the adapter has no build for.
--
-- Tables returned are shared per ctx: callers read them, never change them.

local refs = require("refs")

local M = {}

local PREFIX = "torchvision.ops."

local by_ctx = setmetatable({}, { __mode = "k" })

-- {entries = name -> entry, torches = torch version -> adapter row, use = false or the
-- first use of an operator the adapter covers}
local function state(ctx)
	local s = by_ctx[ctx]
	if not s then
		local data = ctx.data("torchvision_npu")
		s = { entries = {}, torches = {}, rows = data.adapter.versions }
		for _i, e in ipairs(data.entries) do s.entries[e.name] = e end
		for _i, v in ipairs(data.adapter.versions) do s.torches[v.torch] = v end
		by_ctx[ctx] = s
	end
	return s
end

-- The table's entry for a resolved dotted name below torchvision.ops, by its last part
-- (torchvision.ops.boxes.batched_nms is batched_nms); nil for any other name.
function M.entry_of(ctx, resolved)
	if resolved:sub(1, #PREFIX) ~= PREFIX then return nil end
	return state(ctx).entries[resolved:match("([%a_][%w_]*)$")]
end

-- "torch 2.6.0: torchvision 0.21.0, torchvision_npu v0.21.0-7.1.0; ..."
function M.versions_text(ctx)
	local parts = {}
	for _i, v in ipairs(state(ctx).rows) do
		parts[#parts + 1] = string.format("torch %s: torchvision %s, torchvision_npu %s", v.torch, v.torchvision, v.tag)
	end
	return table.concat(parts, "; ")
end

-- The adapter's row for a torch version ("2.6.0"), or nil when it has no build for it.
function M.adapter_for(ctx, torch)
	return torch and state(ctx).torches[torch] or nil
end

-- The torch versions the adapter is built for, newest first, as one string.
function M.adapter_torches_text(ctx)
	local list = {}
	for _i, v in ipairs(state(ctx).rows) do list[#list + 1] = v.torch end
	return table.concat(list, ", ")
end

-- The uses of torchvision operators in one file: {node=, text=, resolved=, entry=}.
function M.uses(ctx, path)
	local out = {}
	if not ctx.find(path, "torchvision") then return out end
	for _i, r in ipairs(refs.dotted(ctx, path, refs.aliases(ctx, path))) do
		local e = M.entry_of(ctx, r.resolved)
		if e then out[#out + 1] = { node = r.node, text = r.text, resolved = r.resolved, entry = e } end
	end
	return out
end

-- The project's first use of an operator that runs on the NPU only through the adapter
-- ({path=, line=, text=}), or nil: then the adapter constrains no version choice.
function M.adapter_use(ctx)
	local s = state(ctx)
	if s.use == nil then
		s.use = false
		for _i, path in ipairs(ctx.python_files()) do
			for _i, u in ipairs(M.uses(ctx, path)) do
				if u.entry.npu then
					s.use = { path = path, line = u.node.line, text = u.text }
					break
				end
			end
			if s.use then break end
		end
	end
	return s.use or nil
end

return M
