-- adapt.torch_npu_import: `import torch_npu` (or transfer_to_npu) where the code needs it.

local refs = require("refs")
local cuda = require("cuda")
local devindex = require("devindex")
local project = require("project")

-- What the rewrites start from, found with one small query: the name cuda (x.cuda(),
-- torch.cuda, imports of it), .is_cuda, strings that begin with cuda ('cuda:0', dict keys,
-- autocast('cuda')), and NCCL. Comments and docstrings that only mention CUDA match none.
local STARTS = [[
((identifier) @id (#any-of? @id "cuda" "is_cuda" "is_nccl_available"))
((string) @s (#match? @s "^[rRbBuUfF]*[\"']+cuda"))
((string) @nccl (#match? @nccl "nccl"))
]]

-- Code that already uses the NPU (migrated by hand, or a rewrite kept after the import was
-- reverted): torch.npu and x.npu(), and the 'npu' device given to device=, .to() or
-- torch.device(). A library's tolerant forms (getattr(torch, "npu", ...), hasattr) are
-- strings there, not these.
local NPU_USES = [[
(attribute attribute: (identifier) @attr (#eq? @attr "npu"))
(keyword_argument name: (identifier) @kw (#eq? @kw "device")
  value: (string) @dev (#match? @dev "^[rRbBuUfF]*[\"']npu"))
(call function: (attribute attribute: (identifier) @fn (#any-of? @fn "device" "to"))
  arguments: (argument_list . (string) @arg (#match? @arg "^[rRbBuUfF]*[\"']npu")))
]]

local function uses_npu(ctx, path)
	return #(ctx.query(path, NPU_USES) or {}) > 0
end

-- What makes a file code rather than data: imports, functions, classes.
local CODE = "[(import_statement) (import_from_statement) (future_import_statement) (function_definition) (class_definition)] @code"

-- The import plan of a file that may take `import torch_npu`, or nil: one that imports
-- it already, or a file with no import, function, class or script block, which is data
-- (a LazyConfig-style config holding device="cuda": whatever reads it imports torch, and
-- torch_npu with it; an import here would only break loading the config where torch_npu
-- is not installed).
local function importable(ctx, path)
	local plan = cuda.import_plan(ctx, path)
	if not plan or plan.torch_npu or (not plan.main and #(ctx.query(path, CODE) or {}) == 0) then return nil end
	return plan
end

-- The fix inserting a plain `import torch_npu` into path, saying message.
local function plain_import(ctx, path, plan, message)
	local site = cuda.insert_import(ctx, path, plan, false)
	if site then
		site.message = message
		site.suggestion = _("Add `import torch_npu` right after `import torch`; it registers torch.npu, .npu() and the 'npu' device.")
	end
	return site
end

-- Whether the file has something the NPU rewrites touch (so it needs torch_npu loaded),
-- a bare integer device named as an NPU among them.
-- The detectors run one at a time, each only when the file holds what it starts from,
-- the cheapest first, and the first site with an edit answers: most files need one or
-- two of them, not six, and a file that only mentions CUDA in its docstrings none.
local function needs_npu(ctx, path, text, index, fused)
	local name, is_cuda, str, nccl = false, false, false, false
	for _i, m in ipairs(ctx.query(path, STARTS) or {}) do
		if m.id then
			if m.id.text == "cuda" then name = true
			elseif m.id.text == "is_cuda" then is_cuda = true
			else nccl = true end
		elseif m.s then
			str = true
		else
			nccl = true
		end
	end
	local map
	local function aliases()
		map = map or refs.aliases(ctx, path)
		return map
	end
	local checks = {
		{ name and text:find("cuda%s*%(") ~= nil, function() return cuda.cuda_calls(ctx, path) end },
		{ name, function() return cuda.cuda_apis(ctx, path, index, aliases()) end },
		{ str or is_cuda, function() return cuda.device_branches(ctx, path) end },
		{ (name and text:find("cuda%s*%.%s*amp") ~= nil)
			or (str and (text:find("autocast", 1, true) or text:find("GradScaler", 1, true)) ~= nil),
			function() return cuda.amp(ctx, path, fused, aliases()) end },
		{ nccl, function() return cuda.backend(ctx, path, aliases()) end },
		{ str, function() return cuda.device_strings(ctx, path, aliases()) end },
		{ (text:find("%.to%s*%(") or text:find("device%s*%(")) ~= nil, function() return devindex.sites(ctx, path) end },
	}
	for _i, c in ipairs(checks) do
		if c[1] then
			for _j, s in ipairs(c[2]()) do
				if s.edits and #s.edits > 0 and s.only ~= "survey" then return true end
			end
		end
	end
	return false
end

return {
	id = "adapt.torch_npu_import",
	phase = "adapt",
	title = _("import torch_npu (or transfer_to_npu in entry scripts)"),
	severity = "warning",
	category = "device",
	description = _("Inserts `import torch_npu` once, right after `import torch` (before the "
		.. "first torch import when another one comes first; right after an `import torch` under "
		.. "an if or a try, at its indentation, when torch is optional there; at the top, after "
		.. "the docstring, in a file that imports no torch itself, such as a script handing the "
		.. "device to a package), in every file the NPU rewrites touch (not in a file that "
		.. "has no import, function, class or script block, such as a config holding "
		.. "device=\"cuda\": what reads it imports torch_npu): torch.npu, .npu() and the 'npu' "
		.. "device exist only once torch_npu is loaded. "
		.. "A file that already imports torch_npu anywhere (inside try/except, an if or a "
		.. "function too) gets no second import. In a library, a package others import (a "
		.. "setup.py, setup.cfg or pyproject.toml that installs it, the package beside it or in "
		.. "src/), the package's modules get no import of their own: its __init__.py gets one "
		.. "guarded import, `try: import torch_npu` / `except ImportError: pass`, which every "
		.. "module of the package runs first and which keeps the package importable where "
		.. "torch_npu is not installed; nothing when that __init__.py already imports torch_npu. "
		.. "Entry scripts, tests and examples outside the package get the plain import. The line "
		.. "ending of the file is kept. With `ferry config strategy auto` it inserts "
		.. "`from torch_npu.contrib import transfer_to_npu` into the entry scripts instead, which "
		.. "maps CUDA calls to the NPU at run time: the scripts that import torch and that the "
		.. "project says it runs (`python train.py`, `torchrun ... train.py`, `python -m pkg.train` "
		.. "in its READMEs, docs and shell scripts, its console scripts) or that have a __main__ block."),
	run = function(ctx)
		local auto = cuda.auto(ctx)
		local index = cuda.api_index(ctx)
		local fused = cuda.apex_fused(ctx)
		local lib = not auto and cuda.library(ctx) or nil
		local packages = {} -- package dir -> {pkg=, need=first module that needs torch_npu}
		local entries -- the scripts the project says it runs, read at the first file under auto
		-- whether the project loads torch_npu the NPU-aware way somewhere: an import inside a
		-- function, a try or an if (an accelerator module choosing the device). A script
		-- that imports it at its top (a generated profiling helper) loads it for itself only.
		local imported
		local function any_torch_npu()
			if imported == nil then
				imported = false
				for _i, f in ipairs(ctx.files("%.py$")) do
					local text = ctx.find(f, "torch_npu") and ctx.read(f) or nil
					if text and (text:find("\n[ \t]+import torch_npu") or text:find("\n[ \t]+from torch_npu")) then
						imported = true
						break
					end
				end
			end
			return imported
		end
		for _i, path in ipairs(ctx.files("%.py$")) do
			-- cheap prefilter before parsing, in C: only files that can need the import
			local site
			if auto then
				-- an entry script (project.entry_scripts, assess.inventory's: one the project
				-- says it runs, as nanoGPT's `torchrun train.py`, one with a __main__ block that
				-- is no module's self-test, one training at module level) that imports torch
				-- itself (a data-preparation script does not need transfer_to_npu)
				entries = entries or project.entry_scripts(ctx)
				local plan = entries[path] and ctx.find(path, "torch") and cuda.import_plan(ctx, path)
				if plan then
					site = cuda.insert_import(ctx, path, plan, true)
					if site then
						site.message = _("`{file}` is an entry script without `from torch_npu.contrib import transfer_to_npu`.", { file = path })
						site.suggestion = _("Import torch_npu and transfer_to_npu right after `import torch`: CUDA calls, device strings and the NCCL backend are then mapped to the NPU at run time.")
					end
				end
			elseif ctx.find(path, "cuda") or ctx.find(path, "nccl") or ctx.find(path, ".to(") or ctx.find(path, "device(") then
				-- (.to( and device( for a bare integer device, adapt.device_index's)
				local text = ctx.read(path) or ""
				local pkg = lib.of(path)
				if pkg then
					-- one module of the package that needs torch_npu is enough
					local p = packages[pkg.dir]
					if not p then
						local plan = cuda.import_plan(ctx, pkg.init)
						p = { pkg = pkg, done = not plan or plan.torch_npu }
						packages[pkg.dir] = p
					end
					if not p.done and needs_npu(ctx, path, text, index, fused) then
						p.need, p.done = path, true
					end
				else
					local plan = importable(ctx, path)
					if plan and needs_npu(ctx, path, text, index, fused) then
						site = plain_import(ctx, path, plan,
							_("`{file}` uses the NPU after migration but does not import torch_npu.", { file = path }))
					end
				end
			end
			if not site and not auto and not lib.of(path) and ctx.find(path, "npu") and not any_torch_npu()
				and not ctx.find(path, 'hasattr(torch, "npu")') and not ctx.find(path, 'getattr(torch, "npu"')
				and uses_npu(ctx, path) then
				-- it uses the NPU already (by hand, or rewrites kept after their import was
				-- reverted) and nothing loads torch_npu the NPU-aware way: torch.npu and the
				-- 'npu' device do not exist until something does. Code that tests for
				-- torch.npu first, or a project with an accelerator module loading
				-- torch_npu, is left alone; so is a data-only file.
				local plan = importable(ctx, path)
				if plan then
					site = plain_import(ctx, path, plan,
						_("`{file}` uses the NPU (torch.npu, .npu() or the 'npu' device) but does not import torch_npu.", { file = path }))
				end
			end
			if site then refs.report(ctx, site, "fix") end
		end
		for _i, pkg in ipairs(lib and lib.list or {}) do
			local p = packages[pkg.dir]
			if p and p.need then
				local site = cuda.insert_import(ctx, pkg.init, cuda.import_plan(ctx, pkg.init), false, true)
				if site then
					site.message = _("The package `{package}` is imported by other code and its modules use the NPU after migration (`{module}` first), but it does not import torch_npu.",
						{ package = pkg.dir, module = p.need })
					site.suggestion = _("Import torch_npu once in `{file}`, guarded (`try: import torch_npu` / `except ImportError: pass`): every module of the package runs it first, and the package still imports where torch_npu is not installed.",
						{ file = pkg.init })
					refs.report(ctx, site, "fix")
				end
			end
		end
	end,
}
