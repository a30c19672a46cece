-- assess.distributed_backend: the NCCL backend in process-group setup and checks.

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

-- A backend string: 'nccl', or a device:backend list such as 'cpu:gloo,cuda:nccl'.
local function backend_string(inner)
	return inner == "nccl" or (inner:find("nccl", 1, true) and inner:match("^[%w_:,]+$"))
end

return {
	id = "assess.distributed_backend",
	phase = "assess",
	title = "NCCL distributed backend",
	severity = "warning",
	category = "distributed",
	description = "Finds the NCCL backend wherever the code names it: init_process_group(backend='nccl'), "
		.. "argparse defaults, --backend nccl in launch scripts, comparisons such as backend == 'nccl', lists of allowed backends, "
		.. "dist.is_nccl_available() and Backend.NCCL. Ascend uses HCCL. Automatic migration "
		.. "rewrites the backend argument but not string comparisons, which must be edited.",
	triggers = { "nccl", "NCCL" },
	query = [[(string) @str]],
	run = function(ctx)
		-- launch scripts: --backend nccl, --dist-backend=nccl (comments skipped)
		for _, path in ipairs(ctx.files("%.sh$")) do
			local text = ctx.read(path)
			local pos, line = 1, 1
			while text and pos <= #text do
				local nl = text:find("\n", pos, true) or (#text + 1)
				local l = text:sub(pos, nl - 1)
				local c = l:find("^%s*#") and 1 or l:find("%s#")
				local code = c and l:sub(1, c) or l
				for s, word in code:gmatch("%-%-[%w_%-]*backend[=%s]+[\"']?()(nccl)%f[^%w_]") do
					ctx.report{
						file = path, line = line, col = s, end_line = line, end_col = s + #word,
						message = "The launch script selects the NCCL backend (`" .. code:match("%-%-[%w_%-]*backend[=%s]+[\"']?nccl") .. "`).",
						suggestion = "Pass 'hccl' instead, Ascend's collective library.",
						edits = { { start_byte = pos - 1 + s - 1, end_byte = pos - 1 + s - 1 + #word, text = "hccl" } },
						key = "sh:" .. s,
					}
				end
				pos, line = nl + 1, line + 1
			end
		end
		for _, path in ipairs(ctx.python_files()) do
			for _, m in ipairs(ctx.query(path) or {}) do
				local inner, at = string_inner(m.str)
				if backend_string(inner) then
					local edits = {}
					local i = 1
					while true do
						local s, e = inner:find("nccl", i, true)
						if not s then break end
						edits[#edits + 1] = { start_byte = at + s - 1, end_byte = at + e, text = "hccl" }
						i = e + 1
					end
					i = 1
					while inner ~= "nccl" do
						local s, e = inner:find("cuda", i, true)
						if not s then break end
						edits[#edits + 1] = { start_byte = at + s - 1, end_byte = at + e, text = "npu" }
						i = e + 1
					end
					table.sort(edits, function(a, b) return a.start_byte < b.start_byte end)
					ctx.report{
						file = path, node = m.str,
						message = "The distributed backend " .. m.str.text .. " is NVIDIA's NCCL.",
						suggestion = "Use 'hccl', Ascend's collective library (comparisons and lists of allowed backends need the same change).",
						edits = edits,
					}
				end
			end
			local map = aliases(ctx, path)
			for _, r in ipairs(dotted_refs(ctx, path, map)) do
				local name = r.resolved
				if name == "torch.distributed.is_nccl_available" then
					local edits
					local s = r.node.text:find("is_nccl_available", 1, true)
					if s then
						edits = { { start_byte = r.node.start_byte + s - 1, end_byte = r.node.start_byte + s - 1 + #"is_nccl_available", text = "is_hccl_available" } }
					end
					ctx.report{
						file = path, node = r.node,
						message = "`" .. r.text .. "` asks whether NCCL is available, which is never true on an NPU host.",
						suggestion = "Call `torch.distributed.is_hccl_available()` instead.",
						edits = edits,
					}
				elseif name:match("^torch%.distributed%..*NCCL") or name:match("^torch%.distributed%.Backend%.NCCL$") then
					ctx.report{
						file = path, node = r.node,
						message = "`" .. r.text .. "` refers to the NCCL backend.",
						suggestion = "Refer to HCCL instead (torch_npu's ProcessGroupHCCL, or the backend name 'hccl').",
					}
				end
			end
		end
	end,
}
