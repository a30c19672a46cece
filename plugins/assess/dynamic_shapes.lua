-- assess.dynamic_shapes: operators whose output shape depends on the data.

local host = require("host")
local py = require("py")
local refs = require("refs")

local FUNCS = {
	["torch.nonzero"] = true, ["torch.masked_select"] = true, ["torch.unique"] = true,
	["torch.argwhere"] = true,
}
local QUERY = [[
(call function: (attribute object: (_) @obj attribute: (identifier) @m (#any-of? @m "nonzero" "masked_select" "argwhere")) arguments: (argument_list) @args) @method
(call function: [(identifier) (attribute)] @f arguments: (argument_list . (_) @only .) (#match? @f "where$")) @where
(subscript value: (_) @v subscript: (comparison_operator) @mask) @index
(assignment left: (subscript subscript: (comparison_operator)) @store)
]]

return {
	id = "assess.dynamic_shapes",
	phase = "assess",
	title = _("Dynamic-shape operators (nonzero, masked_select, boolean-mask indexing)"),
	severity = "info",
	category = "dynamic-shape",
	description = _("Finds operators whose output size depends on tensor values: nonzero, "
		.. "masked_select, unique, single-argument torch.where and indexing with a boolean "
		.. "mask (looked for in files that use one of those operators, or import torch and mention a mask). On an NPU each new shape can trigger operator compilation, so they are slow in "
		.. "a training loop; run with torch_npu.npu.set_compile_mode(jit_compile=False) and "
		.. "consider fixed-size alternatives. Host values (numpy arrays, tensors built "
		.. "without a device), numpy code (a function calling numpy in a module that imports numpy and never uses torch) "
		.. "and dataset code run by DataLoader workers are reported as host-side, not affected (info)."),
	-- Boolean-mask indexing has no literal of its own: it is looked for in files that use
	-- a dynamic-shape operator or are torch code mentioning a mask, so the survey need not
	-- parse every file.
	triggers = { "nonzero", "masked_select", "unique(", "where(", "argwhere", { "torch", "mask" } },
	run = function(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			local map = refs.aliases(ctx, path)
			local h = host.file(ctx, path, map)
			local seen = {}
			-- kind: "call", "where", "index" or "store"; code: its text; value: the tensor the
			-- operator works on (host values have no device shape)
			local function report(node, kind, code, value)
				if seen[node.start_byte] then return end
				seen[node.start_byte] = true
				local why = h:why(value or node, node)
				if why then
					ctx.report(host.not_affected(path, node, code, why))
					return
				end
				local a = { code = code }
				local message, suggestion
				if kind == "store" then
					message = _("Assignment through a boolean mask `{code}` keeps the tensor's shape, but the mask is first turned into the indices of its true elements, an intermediate whose size depends on the data (a dynamic shape).", a)
					suggestion = _("Use torch_npu.contrib.function.npu_fast_condition_index_put, or torch.where(mask, value, x), which keep the shape fixed.")
				else
					if kind == "index" then
						message = _("Indexing with a boolean mask `{code}` produces a tensor whose shape depends on the data (a dynamic shape).", a)
					elseif kind == "where" then
						message = _("`{code}` with only a condition produces a tensor whose shape depends on the data (a dynamic shape).", a)
					else
						message = _("`{code}` produces a tensor whose shape depends on the data (a dynamic shape).", a)
					end
					suggestion = _("Prefer a fixed-shape form (e.g. torch.where(mask, x, 0) or a multiplication by the mask) inside the training loop, and set torch_npu.npu.set_compile_mode(jit_compile=False).")
				end
				ctx.report{ file = path, node = node, message = message, suggestion = suggestion }
			end
			for _i, r in ipairs(refs.dotted(ctx, path, map)) do
				if FUNCS[r.resolved] then report(r.node, "call", r.text, { text = "" }) end
			end
			local matches = ctx.query(path, QUERY) or {}
			for _i, m in ipairs(matches) do
				if m.store then
					report(m.store, "store", m.store.text, { text = m.store.text:match("^[^%[]*") })
				end
			end
			for _i, m in ipairs(matches) do
				if m.method and m.obj.text ~= "torch" then
					report(m.method, "call", "." .. m.m.text .. "()", m.obj)
				elseif m.where and py.expand(map, m.f.text) == "torch.where" and m.only.type ~= "keyword_argument" then
					report(m.where, "where", m.f.text)
				elseif m.index then
					report(m.index, "index", m.index.text, m.v)
				end
			end
		end
	end,
}
