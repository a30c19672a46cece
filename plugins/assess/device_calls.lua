-- assess.device_calls: code that puts tensors and modules on a CUDA device.

local py = require("py")

-- A string literal's content and the byte offset where the content starts.
local function string_inner(node)
	local value, prefix = py.string_value(node.text)
	if not value then return "", node.start_byte end
	local quote = (#node.text - #prefix - #value) // 2
	return value, node.start_byte + #prefix + quote
end

-- Strings that name the CUDA device on purpose: 'cuda', 'cuda:0', 'cuda:%d', 'cuda:{}',
-- f'cuda:{rank}', and 'cuda:' (followed by + str(i)).
local function device_string(inner)
	return inner == "cuda" or inner == "cuda:" or inner:match("^cuda:%d+$") or inner == "cuda:%d"
		or inner == "cuda:%s" or inner:match("^cuda:{[^{}]*}$")
end

local SKIP_QUERY = [[
(comparison_operator (string) @s)
(call function: (_) @f arguments: (argument_list . (string) @s))
(call function: (_) @f arguments: (argument_list (keyword_argument name: (identifier) @k value: (string) @s)))
]]

return {
	id = "assess.device_calls",
	phase = "assess",
	title = "CUDA device placement (.cuda(), 'cuda' device strings)",
	severity = "warning",
	category = "device",
	description = "Finds .cuda() calls and device strings such as 'cuda', 'cuda:0', f'cuda:{rank}' or "
		.. "'cuda:%d' % i. On Ascend the device is 'npu' and the method is .npu(), available once "
		.. "torch_npu is imported. Each site is a mechanical rewrite.",
	triggers = { "cuda" },
	query = [[
(call function: (attribute object: (_) @obj attribute: (identifier) @m (#eq? @m "cuda")) arguments: (argument_list) @args) @call
(string) @str
]],
	run = function(ctx)
		for _, path in ipairs(ctx.python_files()) do
			-- Strings owned by other checks: comparisons (device-type branches) and the
			-- device argument of autocast/GradScaler (amp).
			local skip = {}
			for _, m in ipairs(ctx.query(path, SKIP_QUERY) or {}) do
				if not m.f then
					skip[m.s.start_byte] = true
				else
					local fname = m.f.text:match("([%a_][%w_]*)$") or ""
					if (fname == "autocast" or fname == "GradScaler")
						and (not m.k or m.k.text == "device_type" or m.k.text == "device") then
						skip[m.s.start_byte] = true
					end
				end
			end
			for _, m in ipairs(ctx.query(path) or {}) do
				if m.call and m.obj.text ~= "torch" then
					ctx.report{
						file = path, node = m.call,
						message = "`" .. m.obj.text .. ".cuda()` moves this object to an NVIDIA GPU.",
						suggestion = "Call `.npu()` instead (after `import torch_npu`), or better `.to(device)` with one device variable set to 'npu'.",
						edits = { { start_byte = m.m.start_byte, end_byte = m.m.end_byte, text = "npu" } },
					}
				elseif m.str and not skip[m.str.start_byte] then
					local inner, at = string_inner(m.str)
					if device_string(inner) then
						ctx.report{
							file = path, node = m.str,
							message = "The device string " .. m.str.text .. " names an NVIDIA GPU.",
							suggestion = "Write 'npu' instead of 'cuda' (e.g. 'npu:0'); torch_npu registers the 'npu' device type.",
							edits = { { start_byte = at, end_byte = at + 4, text = "npu" } },
						}
					end
				end
			end
		end
	end,
}
