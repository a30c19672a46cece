-- assess.amp: mixed precision through torch.cuda.amp, autocast('cuda') and apex.

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

-- A string literal's content and the byte offset where the content starts.
local function string_inner(node)
	local value, prefix = py.string_value(node.text)
	if not value then return "", node.start_byte end
	local quote = (#node.text - #prefix - #value) // 2
	return value, node.start_byte + #prefix + quote
end

local AMP_CALLS = [[
(call function: (_) @f arguments: (argument_list . (string) @s)) @call
(call function: (_) @f arguments: (argument_list (keyword_argument name: (identifier) @k value: (string) @s))) @call
]]

return {
	id = "assess.amp",
	phase = "assess",
	title = "Mixed precision (torch.cuda.amp, autocast('cuda'), apex.amp, amp_C)",
	severity = "warning",
	category = "amp",
	description = "Finds torch.cuda.amp (autocast, GradScaler), autocast/GradScaler created for the "
		.. "'cuda' device, apex.amp, apex's CUDA kernel module amp_C and apex fused optimizers. "
		.. "torch.npu.amp provides autocast and GradScaler; amp_C is unsupported and apex fused "
		.. "optimizers are not migrated automatically.",
	triggers = { "amp", "autocast", "GradScaler", "apex" },
	run = function(ctx)
		local fused = {}
		for _, e in ipairs(ctx.data("affinity_apis").entries) do
			if e.original:match("^apex%.") then fused[e.original] = e end
		end
		for _, path in ipairs(ctx.python_files()) do
			local map = aliases(ctx, path)
			-- imports: from torch.cuda.amp import ..., apex.amp, amp_C
			for _, imp in ipairs(py.imports(ctx, path) or {}) do
				local full = imp.full or imp.module
				local node = imp.node
				if imp.name and (imp.module == "torch.cuda.amp" or imp.module:match("^torch%.cuda%.amp%.")) then
					ctx.report{
						file = path, node = node,
						message = "`" .. full .. "` is imported from torch.cuda.amp, the CUDA mixed-precision module.",
						suggestion = "Import it from `torch.npu.amp` instead (after `import torch_npu`), or use `torch.autocast('npu')` and `torch.npu.amp.GradScaler()`.",
						key = full,
					}
				elseif imp.module == "amp_C" or (imp.module:match("^amp_C%.")) then
					ctx.report{
						file = path, node = node, severity = "error",
						message = "`amp_C` is apex's CUDA kernel module; it is not supported on NPU.",
						suggestion = "Delete `import amp_C` and replace the code that calls it with plain torch operations or an NpuFused optimizer.",
						key = full,
					}
				elseif full == "apex.amp" or full:match("^apex%.amp%.") then
					ctx.report{
						file = path, node = node,
						message = "apex.amp (`" .. full .. "`) provides mixed precision through NVIDIA's apex.",
						suggestion = "Prefer native AMP: `torch.autocast('npu')` with `torch.npu.amp.GradScaler`; if apex.amp stays, call `amp.initialize` before wrapping the model in DDP.",
						key = full,
					}
				end
			end
			for _, r in ipairs(dotted_refs(ctx, path, map)) do
				local name = r.resolved
				local sub = name:match("^torch%.cuda%.amp%.(.+)$")
				if sub and r.node.text:sub(1, 11) == "torch.cuda." then
					ctx.report{
						file = path, node = r.node,
						message = "`" .. r.text .. "` is CUDA mixed precision.",
						suggestion = "Use `torch.npu.amp." .. sub .. "` (after `import torch_npu`); it takes the same arguments.",
						edits = { { start_byte = r.node.start_byte + 6, end_byte = r.node.start_byte + 10, text = "npu" } },
					}
				elseif sub and not r.plain then
					ctx.report{
						file = path, node = r.node,
						message = "`" .. r.text .. "` is torch.cuda.amp." .. sub .. ", CUDA mixed precision.",
						suggestion = "Use `torch.npu.amp." .. sub .. "` (after `import torch_npu`) and change the import that binds `" .. r.text:match("^[%a_][%w_]*") .. "`.",
					}
				elseif fused[name] then
					ctx.report{
						file = path, node = r.node,
						message = "`" .. r.text .. "` is an apex fused optimizer built on CUDA kernels; migration tools do not convert it.",
						suggestion = "Replace it with `" .. fused[name].replacement .. "` (same hyper-parameters) or a torch.optim optimizer.",
						data = { replacement = fused[name].replacement },
					}
				elseif name == "apex.amp.initialize" or name == "apex.amp.scale_loss" then
					ctx.report{
						file = path, node = r.node,
						message = "`" .. r.text .. "` uses apex.amp.",
						suggestion = "Move to native AMP (`torch.autocast('npu')`, `torch.npu.amp.GradScaler`); if apex.amp stays, call amp.initialize before DDP wraps the model.",
					}
				end
			end
			-- autocast('cuda') / GradScaler('cuda') / autocast(device_type='cuda')
			for _, m in ipairs(ctx.query(path, AMP_CALLS) or {}) do
				local fname = m.f.text:match("([%a_][%w_]*)$") or ""
				if (fname == "autocast" or fname == "GradScaler")
					and (not m.k or m.k.text == "device_type" or m.k.text == "device") then
					local inner, at = string_inner(m.s)
					if inner == "cuda" then
						ctx.report{
							file = path, node = m.call,
							message = "`" .. fname .. "` is created for the 'cuda' device.",
							suggestion = "Pass 'npu' as the device type.",
							edits = { { start_byte = at, end_byte = at + 4, text = "npu" } },
						}
					end
				end
			end
		end
	end,
}
