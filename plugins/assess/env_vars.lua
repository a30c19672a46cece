-- assess.env_vars: CUDA/NCCL environment variables in Python and launch scripts.

local py = require("py")

-- A string literal's content and the byte offset where the content starts.
local function string_inner(node)
	local value, prefix = py.string_value(node.text)
	if not value then return "", node.start_byte end
	local quote = (#node.text - #prefix - #value) // 2
	return value, node.start_byte + #prefix + quote
end

local function is_gpu_var(name)
	return name:match("^CUDA_[A-Z0-9_]+$") or name:match("^NCCL_[A-Z0-9_]+$")
		or name:match("^TORCH_NCCL_[A-Z0-9_]+$") or name == "PYTORCH_CUDA_ALLOC_CONF"
end

return {
	id = "assess.env_vars",
	phase = "assess",
	title = "CUDA and NCCL environment variables",
	severity = "warning",
	category = "environment",
	description = "Finds CUDA_*, NCCL_* and TORCH_NCCL_* variables read or set in Python (os.environ, "
		.. "os.getenv) and in shell launch scripts. They have no effect on Ascend: "
		.. "CUDA_VISIBLE_DEVICES becomes ASCEND_RT_VISIBLE_DEVICES, NCCL_* settings have HCCL_* "
		.. "counterparts (env_vars.json), some with different values.",
	triggers = { "CUDA_", "NCCL_" },
	query = [[(string) @str]],
	run = function(ctx)
		local exact, prefix = {}, {}
		for _, e in ipairs(ctx.data("env_vars").entries) do
			if e.name:sub(-1) == "*" then prefix[#prefix + 1] = e else exact[e.name] = e end
		end
		local function entry(name)
			if exact[name] then return exact[name] end
			for _, e in ipairs(prefix) do
				if name:sub(1, #e.name - 1) == e.name:sub(1, -2) then return e end
			end
			if name:match("^TORCH_NCCL_") then
				for _, e in ipairs(prefix) do
					if e.name == "NCCL_*" then return e end
				end
			end
			return nil
		end
		local function finding(path, name, start_byte, pos)
			local e = entry(name)
			if not e then return end
			local f = {
				file = path,
				message = "`" .. name .. "` configures " .. (name:match("NCCL") and "NVIDIA's NCCL" or "the CUDA runtime") .. " and has no effect on Ascend.",
				key = pos.key or name,
			}
			if e.npu then
				f.suggestion = "Use `" .. e.npu .. "` instead" .. (e.notes and ("; " .. e.notes) or "") .. "."
			else
				f.suggestion = "Remove it; " .. (e.notes or "there is no Ascend counterpart") .. "."
			end
			if e.npu and e.exact then
				f.edits = { { start_byte = start_byte, end_byte = start_byte + #name, text = e.npu } }
			end
			for k, v in pairs(pos) do
				if k ~= "key" then f[k] = v end
			end
			ctx.report(f)
		end
		for _, path in ipairs(ctx.python_files()) do
			for _, m in ipairs(ctx.query(path) or {}) do
				local inner, at = string_inner(m.str)
				if is_gpu_var(inner) then finding(path, inner, at, { node = m.str }) end
			end
		end
		for _, path in ipairs(ctx.files("%.sh$")) do
			local text = ctx.read(path)
			if text then
				local pos, line = 1, 1
				while pos <= #text do
					local nl = text:find("\n", pos, true) or (#text + 1)
					local l = text:sub(pos, nl - 1)
					-- the code part of the line: up to a # that starts a comment
					local c = l:find("^%s*#") and 1 or l:find("%s#")
					local code = c and l:sub(1, c) or l
					for s, name in code:gmatch("()%f[%w_]([A-Z][A-Z0-9_]*)%f[^%w_]") do
						if is_gpu_var(name) then
							finding(path, name, pos - 1 + s - 1,
								{ line = line, col = s, end_line = line, end_col = s + #name, key = name .. "@" .. s })
						end
					end
					pos, line = nl + 1, line + 1
				end
			end
		end
	end,
}
