-- assess.inventory: what the project is made of, and where it starts.

local cuda = require("cuda")
local project = require("project")

local MAIN_QUERY = [[
(if_statement condition: (comparison_operator (identifier) @n (string) @s) (#eq? @n "__name__")) @main
]]

-- Where the migration starts in an entry script, unless it has already started there.
local function npu_advice(ctx, path)
	local plan = cuda.import_plan(ctx, path) or {}
	if plan.transfer then
		return _("It already imports transfer_to_npu, which loads torch_npu and maps the CUDA calls: the migration "
			.. "starts from there.")
	elseif plan.torch_npu then
		return _("It already imports torch_npu: what is left is the device code it runs (the adapt phase's checks).")
	end
	return _("This is where the migration starts: add `import torch_npu` (or `from torch_npu.contrib import transfer_to_npu`) at the top of this file.")
end

return {
	id = "assess.inventory",
	phase = "assess",
	title = _("Project inventory (files, lines of code, entry scripts)"),
	severity = "info",
	category = "inventory",
	description = _("Counts files and lines of Python, shell and CUDA code and finds the entry scripts "
		.. "(an `if __name__ == '__main__':` block in torch code, or in a script whose own imports of "
		.. "the project reach torch code; a tool script that never touches torch, or a build script, is not one). The numbers "
		.. "feed the effort estimate; the entry scripts are where `import torch_npu` (or transfer_to_npu) "
		.. "goes, unless they import it already."),
	triggers = { "__main__" },
	run = function(ctx)
		local files = ctx.files()
		local n_py, loc_py, n_sh, n_cu, loc_cu, n_nb, entries = 0, 0, 0, 0, 0, 0, 0
		local function loc(path, comment) return ctx.loc(path, comment) or 0 end
		for _i, path in ipairs(files) do
			if path:match("%.py$") then
				n_py = n_py + 1
				loc_py = loc_py + loc(path, "#")
			elseif path:match("%.sh$") then
				n_sh = n_sh + 1
			elseif path:match("%.cuh?$") then
				n_cu = n_cu + 1
				loc_cu = loc_cu + loc(path, "//")
			elseif path:match("%.ipynb$") then
				n_nb = n_nb + 1
			end
		end
		for _i, path in ipairs(ctx.python_files()) do
			-- a script that builds the model through the project's own package never spells
			-- torch; a build script (setup.py, torch.utils.ffi's create_extension) runs no model
			local torch_code = not cuda.build_script(ctx, path) and project.program_mentions(ctx, path, "torch")
			for _i, m in ipairs(torch_code and ctx.query(path, MAIN_QUERY) or {}) do
				if m.s.text:match("^[\"']+__main__[\"']+$") then
					entries = entries + 1
					ctx.report{
						file = path, line = m.main.line, col = m.main.col,
						end_line = m.main.line, end_col = m.main.col + #(m.main.text:match("^[^\n]*")),
						message = _("`{file}` is an entry script (it has an `if __name__ == \"__main__\":` block).", { file = path }),
						suggestion = npu_advice(ctx, path),
						key = "entry",
					}
				end
			end
		end
		ctx.metric("files", #files, "files")
		ctx.metric("python_files", n_py, "files")
		ctx.metric("python_loc", loc_py, "lines")
		ctx.metric("shell_scripts", n_sh, "files")
		ctx.metric("cuda_sources", n_cu, "files")
		ctx.metric("cuda_loc", loc_cu, "lines")
		ctx.metric("notebooks", n_nb, "files")
		ctx.metric("entry_scripts", entries, "files")
	end,
}
