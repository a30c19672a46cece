-- adapt.mindspeed: a Megatron-LM project runs on Ascend through MindSpeed.
--
-- Facts: megatron.json (what marks a Megatron or MindSpeed project; the adaptor import
-- and where it goes). In such a project the launch settings Megatron checks
-- (--distributed-backend nccl, CUDA_DEVICE_MAX_CONNECTIONS=1) stay as they are (see
-- cuda.megatron); the port is `import mindspeed.megatron_adaptor` under `import torch` in
-- each entry script, which this check proposes where it is missing.

local cuda = require("cuda")

-- Entry scripts: pretrain_*.py, and files that import megatron and run as __main__.
local function entries(ctx)
	local out, seen = {}, {}
	for _i, path in ipairs(ctx.python_files()) do
		local base = path:match("[^/]+$")
		local text = ctx.read(path) or ""
		local main = text:find("__main__", 1, true)
		if not path:match("^megatron/") and (base:match("^pretrain_.*%.py$")
			or (main and (text:find("from megatron", 1, true) or text:find("import megatron", 1, true)))) then
			if not seen[path] then
				seen[path] = true
				out[#out + 1] = path
			end
		end
	end
	table.sort(out)
	return out
end

return {
	id = "adapt.mindspeed",
	phase = "adapt",
	title = _("Megatron-LM on Ascend: import mindspeed.megatron_adaptor"),
	severity = "warning",
	category = "distributed",
	description = _("A Megatron-LM project is ported with MindSpeed: `import mindspeed.megatron_adaptor` under "
		.. "`import torch` in each entry script patches Megatron for the NPU, and the launch settings Megatron "
		.. "checks (--distributed-backend nccl, CUDA_DEVICE_MAX_CONNECTIONS=1) stay as they are."),
	triggers = { "megatron", "mindspeed", "pretrain_" },
	run = function(ctx)
		local mg = cuda.megatron(ctx)
		if not mg then return end
		for _i, path in ipairs(entries(ctx)) do
			local text = ctx.read(path) or ""
			if not text:find("mindspeed.megatron_adaptor", 1, true) then
				local plan = cuda.import_plan(ctx, path)
				local st = plan and plan.anchor
				local f = {
					file = path, line = st and st.line or 1, col = st and st.col or 1, key = "adaptor",
					message = _("`{file}` runs Megatron-LM but does not import MindSpeed's adaptor.", { file = path }),
					suggestion = _("Add `{adaptor}` {where}; keep --distributed-backend nccl and CUDA_DEVICE_MAX_CONNECTIONS=1 as they are.",
						{ adaptor = mg.adaptor.name, where = mg.adaptor.where and _(mg.adaptor.where) or "" }),
				}
				if st then
					local nl = text:find("\n", st.end_byte + 1, true)
					if nl then
						local eol = text:sub(nl - 1, nl - 1) == "\r" and "\r\n" or "\n"
						f.end_line, f.end_col = st.line, st.col + #(st.text:match("^[^\n]*"))
						f.edits = { { start_byte = nl, end_byte = nl, text = mg.adaptor.name .. eol } }
					end
				end
				ctx.report(f)
			end
		end
	end,
}
