-- assess.inventory: what the project is made of, and where it starts.
--
-- The entry scripts are project.entry_scripts' (plugins/lib/project.lua has the rule): the
-- programs the project runs to train or run its model, whether they say so with an `if
-- __name__ == "__main__":` block, by doing their work at module level (a training loop
-- with backward() and step(), options parsed at the top: faster_rcnn's and nanoGPT's
-- train.py) or by being named on a launch line of the project (`torchrun train.py` in its
-- README). Not entry scripts: a module of the project with a self-test (a model or data
-- set module another file imports, whose `__main__` block builds one object and parses no
-- command line), a module parsing the options on import, a tool script that never touches
-- torch, a build script. One finding per entry script, where it shows it is one; the
-- design phase's migration plan lists the same files.

local cuda = require("cuda")
local project = require("project")
local words = require("words")

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

-- The finding for the entry script at path, e = its project.entry_scripts entry.
local function entry_finding(path, e)
	local f = { file = path, key = "entry" }
	if e.why == "launched" then
		local l = e.launch
		f.line, f.col, f.end_line, f.end_col = 1, 1, 1, 1
		f.message = _("`{file}` is an entry script: the project runs it (`{command}`, {where} line {line}).",
			{ file = path, command = words.clip(l.text, 80), where = l.file, line = l.line })
	else
		f.line, f.col, f.end_line, f.end_col = e.line, e.col, e.line, e.col + #e.code
		f.message = e.why == "main"
			and _("`{file}` is an entry script (it has an `if __name__ == \"__main__\":` block).", { file = path })
			or _("`{file}` is an entry script: it has no `if __name__ == \"__main__\":` block but runs at module level (`{code}`, line {line}).",
				{ file = path, code = words.clip(e.code, 60), line = e.line })
	end
	return f
end

return {
	id = "assess.inventory",
	phase = "assess",
	title = _("Project inventory (files, lines of code, entry scripts)"),
	severity = "info",
	category = "inventory",
	description = _("Counts files and lines of Python, shell and CUDA code and finds the entry scripts: "
		.. "the programs that train or run the model, with an `if __name__ == '__main__':` block, doing "
		.. "their work at module level (a training loop with backward() and step(), options parsed at the "
		.. "top) or named on a launch line of the project (`torchrun train.py` in its README). A module "
		.. "with a self-test (a model or data set module other files import, whose `__main__` block parses "
		.. "no command line), a tool script that never touches torch and a build script are not. The numbers "
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
		local scripts = project.entry_scripts(ctx)
		for _i, path in ipairs(ctx.files("%.py$")) do
			local e = scripts[path]
			if e then
				entries = entries + 1
				local f = entry_finding(path, e)
				f.suggestion = npu_advice(ctx, path)
				ctx.report(f)
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
