-- assess.device_type_branches: code paths chosen by comparing a device with 'cuda'.

local py = require("py")

-- A string literal's content and the byte offset where the content starts.
local function string_inner(node)
	local value, prefix = py.string_value(node.text)
	if not value then return "", node.start_byte end
	local quote = (#node.text - #prefix - #value) // 2
	return value, node.start_byte + #prefix + quote
end

local function cuda_string(inner)
	return inner == "cuda" or inner:match("^cuda:%d+$")
end

return {
	id = "assess.device_type_branches",
	phase = "assess",
	title = "Branches on the CUDA device type (device.type == 'cuda', .is_cuda)",
	severity = "warning",
	category = "device",
	description = "Finds comparisons with 'cuda' (device.type == 'cuda', 'cuda' in str(device)) and "
		.. "the .is_cuda attribute. On an NPU these are false, so the CUDA branch is silently "
		.. "skipped: pinned memory, AMP or synchronisation may stop happening without an error.",
	triggers = { "cuda" },
	query = [[
(comparison_operator (string) @s) @cmp
(attribute object: (_) @obj attribute: (identifier) @a (#eq? @a "is_cuda")) @attr
]],
	run = function(ctx)
		for _, path in ipairs(ctx.python_files()) do
			for _, m in ipairs(ctx.query(path) or {}) do
				if m.cmp then
					local inner, at = string_inner(m.s)
					if cuda_string(inner) then
						ctx.report{
							file = path, node = m.cmp,
							message = "`" .. m.cmp.text .. "` is false on an NPU, so this CUDA-only branch will be skipped.",
							suggestion = "Compare with 'npu' instead, or test for both device types if the code must still run on GPUs.",
							edits = { { start_byte = at, end_byte = at + 4, text = "npu" } },
						}
					end
				elseif m.attr then
					ctx.report{
						file = path, node = m.attr,
						message = "`" .. m.attr.text .. "` is False for tensors on an NPU.",
						suggestion = "Use `.is_npu` (available after `import torch_npu`) or check `tensor.device.type`.",
						edits = { { start_byte = m.a.start_byte, end_byte = m.a.end_byte, text = "is_npu" } },
					}
				end
			end
		end
	end,
}
