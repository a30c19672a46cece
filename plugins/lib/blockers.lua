-- blockers: constructs no mechanical rewrite can migrate, for the assess survey and for
-- adapt's list of what needs a human (the vendor tool's "unsupported list").
--
--   local blockers = require("blockers")
--
-- Detectors return lists of sites (finding tables for ctx.report, never with edits), in
-- source order; refs.report / refs.report_all deliver them.

local cuda = require("cuda")
local ep = require("envprobe")
local guard = require("guard")
local host = require("host")
local project = require("project")
local train = require("train")
local py = require("py")
local refs = require("refs")
local words = require("words")

local blockers = {}

-- The torchvision_npu.json entry of the torchvision operator with an NPU kernel a CUDA
-- source file is named after (nms_kernel.cu, roi_pooling_kernel.cu, deform_conv_cuda.cu),
-- or nil.
local function torchvision_kernel(ctx, path)
	local base = path:match("([^/]*)$"):lower()
	for _i, e in ipairs(ctx.data("torchvision_npu").entries) do
		if e.npu and e.name == e.kernel and base:find((e.kernel:gsub("2d$", "")), 1, true) then return e end
	end
	return nil
end

-- The first line of lines measuring a box the Caffe-era way, a coordinate difference plus
-- one (`right - left + 1,`, `(a[2] - a[0] + 1)`): its number and text, or nil.
local function plus_one_line(lines)
	for n, line in ipairs(lines) do
		if line:find("%-%s*[%w_%.%[%]]+%s*%+%s*1[%.0-9fF]*%s*[%),]") then return n, line:match("^%s*(.-)%s*$") end
	end
	return nil
end

-- What to do with a CUDA source whose kernel torchvision has (entry e, the file's lines).
local function torchvision_advice(e, lines)
	local n, code = plus_one_line(e.pixel_plus_one == false and lines or {})
	if n then
		return _("It looks like torchvision's `{kernel}`: `torchvision.ops.{kernel}` computes it, and the "
			.. "Torchvision Adapter (`import torchvision_npu`) runs it on the NPU. This kernel measures boxes with the "
			.. "+1 pixel convention (`{code}`, line {line}) and torchvision's without it, so their overlaps differ, most "
			.. "for small boxes, and they can keep different boxes: add 1 to x2 and y2 of the boxes you pass to "
			.. "`torchvision.ops.{kernel}`, which gives the same overlaps. Check the rest (box format, sort order) before "
			.. "calling it instead; otherwise find another torch or torch_npu operator, or rewrite the kernel as an Ascend C "
			.. "custom operator.", { kernel = e.kernel, code = words.clip(code, 60), line = n })
	end
	return _("It looks like torchvision's `{kernel}`: `torchvision.ops.{kernel}` computes it, and the "
		.. "Torchvision Adapter (`import torchvision_npu`) runs it on the NPU. Check that it means the same (box "
		.. "format, coordinate rounding, sort order) and call it instead; otherwise find another torch or torch_npu "
		.. "operator, or rewrite the kernel as an Ascend C custom operator.", { kernel = e.kernel })
end

-- Whether a CUDA source's lines define device code: a __global__ kernel or a __device__
-- function. A file without either is host code (kernel launchers, runtime queries).
local function defines_device_code(lines)
	for _i, line in ipairs(lines) do
		if line:find("__global__", 1, true) or line:find("__device__", 1, true) then return true end
	end
	return false
end

-- The file of device code in host's folder whose kernels the host code at host launches:
-- one whose name without suffix begins with host's, or the other way round
-- (deform_conv_cuda.cu launches deform_conv_cuda_kernel.cu's kernels); nil when there is
-- none.
local function launched_kernels(host, kernel_files)
	local dir, stem = host:match("^(.-)([^/]*)%.cuh?$")
	for _i, k in ipairs(kernel_files) do
		local kdir, kstem = k:match("^(.-)([^/]*)%.cuh?$")
		if kdir == dir and (kstem:sub(1, #stem) == stem or stem:sub(1, #kstem) == kstem) then return k end
	end
	return nil
end

-- The finding of a CUDA source holding device code (path, its lines).
local function kernel_source_site(ctx, path, lines)
	local kernel = torchvision_kernel(ctx, path)
	local message = #lines == 1 and _("`{file}` is CUDA source code (one line): a custom GPU kernel.", { file = path })
		or _("`{file}` is CUDA source code ({n} lines): a custom GPU kernel.", { file = path, n = #lines })
	local ext = cuda.host_built_extension(ctx, path)
	if ext then
		message = _("{verdict} {note}", { verdict = message,
			note = _("Where CUDA is missing, `{builder}` builds `{module}` from its C++ sources alone: the module imports on the NPU host, but the operators this kernel implements run there on CPU tensors only, and fail when given NPU tensors.",
				{ builder = ext.builder, module = ext.name }) })
	end
	return {
		file = path, line = 1, col = 1, end_line = math.max(1, #lines), end_col = 1,
		message = message,
		suggestion = kernel and torchvision_advice(kernel, lines)
			or _("Find an equivalent torch or torch_npu operator for what this kernel computes; if there is none it must be rewritten as an Ascend C custom operator."),
		key = "cuda-source", unit = "cuda:" .. path:match("[^/]*$"),
	}
end

-- The finding of a CUDA source with no device code (path, its lines, the file whose
-- kernels it launches or nil): part of that kernel's port, or a small piece of its own
-- (detectron2's cuda_version.cu returns CUDART_VERSION).
local function host_source_site(path, lines, launched)
	local a = { file = path, n = #lines, kernel = launched }
	local site = { file = path, line = 1, col = 1, end_line = math.max(1, #lines), end_col = 1, key = "cuda-source" }
	if launched then
		site.message = _("`{file}` is CUDA host code ({n} lines) that launches the kernels of `{kernel}`: it is part of that kernel's port.", a)
		site.suggestion = _("Port it with `{kernel}`: once that operator is a torch, torch_npu or Ascend C operator, this launcher goes, or calls the new operator.", a)
		site.unit = "cuda:" .. launched:match("[^/]*$")
	else
		site.message = _("`{file}` is CUDA host code ({n} lines) with no GPU kernel of its own (no `__global__` or `__device__` function): it builds only with the CUDA toolkit.", a)
		site.suggestion = _("Leave it out of what the NPU host builds, or write what it provides without the CUDA runtime (a CUDA version query has nothing to report there).")
		site.severity, site.category = "warning", "device"
		site.unit = "cuda:" .. path:match("[^/]*$")
	end
	return site
end

-- CUDA source files (.cu, .cuh): one project file finding each.
function blockers.cuda_sources(ctx)
	local paths, lines_of, kernel_files = ctx.files("%.cuh?$"), {}, {}
	for _i, path in ipairs(paths) do
		lines_of[path] = ctx.lines(path) or {}
		if defines_device_code(lines_of[path]) then kernel_files[#kernel_files + 1] = path end
	end
	local out = {}
	for _i, path in ipairs(paths) do
		local lines = lines_of[path]
		-- a .cuh header stays a kernel's source: what it declares, kernels include
		if defines_device_code(lines) or not path:match("%.cu$") then
			out[#out + 1] = kernel_source_site(ctx, path, lines)
		else
			out[#out + 1] = host_source_site(path, lines, launched_kernels(path, kernel_files))
		end
	end
	return out
end

-- What each builder does, as the message about a use of it written `text`.
local BUILDERS = {
	["torch.utils.cpp_extension.CUDAExtension"] = function(text)
		return _("`{api}` builds a CUDA extension at install time.", { api = text })
	end,
	["torch.utils.cpp_extension.load"] = function(text)
		return _("`{api}` compiles and loads C++/CUDA sources at run time.", { api = text })
	end,
	["torch.utils.cpp_extension.load_inline"] = function(text)
		return _("`{api}` compiles and loads inline C++/CUDA sources at run time.", { api = text })
	end,
}

-- The sites in path whose dotted name (resolved through the import aliases in map) a
-- rule knows: describe(resolved, text) returns the site's message and suggestion, or nil.
local function dotted_sites(ctx, path, map, describe)
	local out = {}
	for _i, r in ipairs(refs.dotted(ctx, path, map)) do
		local message, suggestion = describe(r.resolved, r.text)
		if message then
			out[#out + 1] = { file = path, node = r.node, message = message, suggestion = suggestion }
		end
	end
	return out
end

-- The Python that compiles or loads CUDA sources (CUDAExtension, cpp_extension.load). A
-- call that names its CUDA source file in a string ("csrc/k.cu") is part of that kernel's
-- work (the same unit as the file's finding); one that does not is a unit of its own.
function blockers.extension_builders(ctx, path, map)
	local sites = dotted_sites(ctx, path, map, function(name, text)
		local what = BUILDERS[name]
		if not what then return nil end
		return what(text),
			_("The CUDA sources it compiles will not build for an NPU: replace those kernels first, then remove this build step or port it to the rewritten operators.")
	end)
	if #sites == 0 then return sites end
	local args = {}
	for _i, m in ipairs(ctx.query(path, "(call function: (_) @f arguments: (argument_list) @a)") or {}) do
		args[m.f.start_byte] = m.a.text
	end
	for _i, s in ipairs(sites) do
		local cu = (args[s.node.start_byte] or ""):match("[\"']([^\"'\n]-%.cu)[\"']")
		if cu then s.unit = "cuda:" .. cu:match("[^/]*$") end
	end
	return sites
end

---------------------------------------------------------------------------------------
-- Build steps that run nvcc
--
-- A shell script (.sh, .bash) or a Makefile (Makefile, makefile, GNUmakefile, *.mk) that
-- runs nvcc compiles the project's own CUDA kernels (faster_rcnn_pytorch's make.sh: `nvcc
-- -c -o roi_pooling.cu.o roi_pooling_kernel.cu ...`), and so does a build script in
-- Python (a setup.py, cuda.build_script) whose code names nvcc (locating it, setting it
-- as the compiler of .cu files). nvcc is not installed on an Ascend host: the step fails
-- there, and the kernels it builds are the work (the CUDA sources, reported on their own).
-- One site per file, at the first line that runs nvcc, saying how many do. In a script,
-- nvcc runs where it is a command's first word (after `VAR=value`, `sudo`, `time`, `if`,
-- `then` ..., in any command of a line: `cd src && nvcc ...`), written as nvcc, as a path
-- ending in /nvcc, or as a variable the file sets to one (`NVCC=$CUDA_PATH/bin/nvcc`,
-- `NVCC ?= nvcc` and `$(NVCC)` in a Makefile recipe); not in a message (`echo "... by
-- nvcc"`), a lookup (`command -v nvcc`, `which nvcc`) or a version query (`nvcc --version`).
-- A Python build script that uses torch's cpp_extension builders is extension_builders'.

-- The nvidia_only.json entry of nvcc (its notes say what it is, with the source).
local function nvcc_tool(ctx)
	for _i, t in ipairs(ctx.data("nvidia_only").tools or {}) do
		if t.name == "nvcc" then return t end
	end
	error("nvidia_only.json has no tool nvcc")
end

local function makefile(path)
	local base = path:match("[^/]*$")
	return base == "Makefile" or base == "makefile" or base == "GNUmakefile" or base:match("%.mk$") ~= nil
end

-- Words before a command's own name that leave it the command run.
local PREFIXES = { sudo = true, time = true, exec = true, env = true, nohup = true, ["then"] = true, ["do"] = true,
	["else"] = true, ["if"] = true, ["elif"] = true, ["while"] = true, ["until"] = true, ["!"] = true, ["{"] = true }
-- nvcc options that only print something, compiling nothing.
local QUERIES = { ["--version"] = true, ["-V"] = true, ["--help"] = true, ["-h"] = true, ["--list-gpu-arch"] = true,
	["--list-gpu-code"] = true }

-- The commands of a line of shell code, each {s = where it starts, text =}: split at ;
-- & | ( ) and backquotes outside quotes.
local function commands(code)
	local out, start, quote, i = {}, 1, nil, 1
	local function cut(e)
		if e >= start then out[#out + 1] = { s = start, text = code:sub(start, e) } end
	end
	while i <= #code do
		local c = code:sub(i, i)
		if quote then
			if c == quote then quote = nil elseif c == "\\" and quote == '"' then i = i + 1 end
		elseif c == "'" or c == '"' then
			quote = c
		elseif c == "\\" then
			i = i + 1
		elseif c:find("^[;&|()`]") then
			cut(i - 1)
			start = i + 1
		end
		i = i + 1
	end
	cut(#code)
	return out
end

-- The program a command path or variable names: "nvcc" for nvcc, /usr/local/cuda/bin/nvcc
-- or "$CUDA_PATH/bin/nvcc"; the variable's name for $NVCC or ${NVCC}.
local function program(word)
	word = word:gsub("[\"']", "")
	local var = word:match("^%${([%a_][%w_]*)}$") or word:match("^%$([%a_][%w_]*)$")
	if var then return nil, var end
	return word:match("([^/]*)$"), nil
end

-- Where a command runs nvcc to compile: the byte of its name in the command, or nil.
-- aliases: the variables the file sets to nvcc.
local function runs_nvcc(cmd, aliases)
	local pos = 1
	while true do
		local s, word, e = cmd:match("^%s*()(%S+)()", pos)
		if not word then return nil end
		if word:find("^[%a_][%w_]*=") or PREFIXES[word] then
			pos = e
		else
			local name, var = program(word)
			if name ~= "nvcc" and not (var and aliases[var]) then return nil end
			for arg in cmd:sub(e):gmatch("%S+") do
				if not QUERIES[arg] and not arg:find("^%d*[<>]") and not arg:find("^&>") then return s end
			end
			return nil
		end
	end
end

-- The lines of a shell script or Makefile that run nvcc: {line=, col=, end_col=, code=}.
local function nvcc_lines(ctx, path)
	local make = makefile(path)
	local aliases, out = {}, {}
	local lines = refs.shell_lines(ctx, path)
	for _i, l in ipairs(lines) do
		-- NAME=value, export NAME=value; in a Makefile NAME = value, :=, ?=, += and !=
		local name, value
		if make then
			name, value = l.code:match("^%s*([%a_][%w_]*)%s*[:?+!]?=%s*(%S*)")
		else
			name, value = l.code:match("^%s*([%a_][%w_]*)=(%S*)")
			if not name then name, value = l.code:match("^%s*export%s+([%a_][%w_]*)=(%S*)") end
		end
		if name and value ~= "" and program((value:gsub("%$%(([%a_][%w_]*)%)", "${%1}"))) == "nvcc" then
			aliases[name] = true
		end
	end
	local continued = false
	for _i, l in ipairs(lines) do
		-- a Makefile runs its recipes (lines starting with a tab) and nothing else; $(VAR) is
		-- written ${VAR} (the same length) so that its parentheses split no command
		local code = l.code
		local recipe = not make or code:sub(1, 1) == "\t"
		if make then code = code:gsub("%$%(([%a_][%w_]*)%)", "${%1}") end
		for k, c in ipairs(recipe and commands(code) or {}) do
			local text = c.text
			if make and k == 1 then text = text:gsub("^(%s*)[@+%-]+", "%1") end
			local at = not (continued and k == 1) and runs_nvcc(text, aliases)
			if at then
				local col = c.s + at - 1 + (#c.text - #text)
				out[#out + 1] = { line = l.line, col = col, end_col = #l.code + 1,
					code = (l.code:sub(col):gsub("%s*\\?%s*$", "")) }
				break
			end
		end
		continued = l.code:find("\\%s*$") ~= nil
	end
	return out
end

-- The project's CUDA source files a text names (by file name), else nil; the names are the
-- files of blockers.cuda_sources' findings.
local function named_sources(ctx, text)
	local out = {}
	for _i, p in ipairs(ctx.files("%.cuh?$")) do
		local base = p:match("[^/]*$")
		if text:find(base, 1, true) then out[#out + 1] = p end
	end
	return #out > 0 and out or nil
end

-- The first three items of a list, each in backquotes, and how many more there are:
-- "`a`, `b`, `c` and 2 more".
local function quoted_list(items)
	local listed = {}
	for i = 1, math.min(#items, 3) do listed[i] = "`" .. items[i] .. "`" end
	local list = table.concat(listed, ", ")
	if #items > 3 then list = _("{list} and {n} more", { list = list, n = #items - 3 }) end
	return list
end

-- The site for a build step in file running nvcc; how = a message saying where it runs it.
local function nvcc_site(ctx, path, site, how)
	local tool = nvcc_tool(ctx)
	local named = named_sources(ctx, ctx.read(path) or "")
	local sources = named or ctx.files("%.cuh?$")
	local list = quoted_list(sources)
	site.file = path
	site.message = _("{how}: nvcc is {notes}, so this build step fails there.",
		{ how = how, notes = _(tool.notes) })
	site.suggestion = #sources > 0
		and _("The CUDA sources it builds are reported by this check as custom GPU kernels ({sources}): port each to a torch or torch_npu operator, or rewrite it as an Ascend C custom operator, then remove this step or make it build the ported operators.",
			{ sources = list })
		or _("The CUDA sources it builds are not in the project: find where they come from and port what they compute to torch or torch_npu operators (or Ascend C custom operators), then remove this step.")
	site.key = "nvcc"
	site.unit = named and "cuda:" .. named[1]:match("[^/]*$") or nil
	return site
end

-- The shell scripts and Makefiles that compile CUDA sources with nvcc: one site each.
function blockers.nvcc_builds(ctx)
	local out = {}
	for _i, path in ipairs(ctx.files()) do
		if (path:find("%.sh$") or path:find("%.bash$") or makefile(path)) and ctx.find(path, "nvcc") then
			local lines = nvcc_lines(ctx, path)
			local first = lines[1]
			if first then
				local a = { file = path, code = first.code, n = #lines }
				out[#out + 1] = nvcc_site(ctx, path, {
					line = first.line, col = first.col, end_line = first.line, end_col = first.end_col,
				}, #lines == 1 and _("`{file}` compiles the project's own CUDA kernels with nvcc (`{code}`)", a)
					or _("`{file}` compiles the project's own CUDA kernels with nvcc ({n} lines run it, the first `{code}`)", a))
			end
		end
	end
	return out
end

-- The Extension(...) calls of a build script: their module names, split into those whose
-- sources include CUDA (.cu) and those built from host sources only, each a list of
-- "`name`" in source order.
local EXTENSIONS = [[
((call function: [(identifier) (attribute)] @f arguments: (argument_list . (string) @name) @args)
  (#match? @f "Extension$"))
((call function: [(identifier) (attribute)] @f
  arguments: (argument_list (keyword_argument name: (identifier) @k value: (string) @name)) @args)
  (#match? @f "Extension$") (#eq? @k "name"))
]]
local function extensions_by_kind(ctx, path)
	local cuda_exts, host_exts = {}, {}
	for _i, m in ipairs(ctx.query(path, EXTENSIONS) or {}) do
		local name = py.string_value(m.name.text)
		if name then
			local list = m.args.text:find("%.cuh?[\"']") and cuda_exts or host_exts
			list[#list + 1] = "`" .. name .. "`"
		end
	end
	return cuda_exts, host_exts
end

-- A Python build script (setup.py, cuda.build_script) that names nvcc: one site, at the
-- function that first does (or the line, at module level), naming every such function.
-- A build script using torch's cpp_extension builders is left to extension_builders.
function blockers.nvcc_build_script(ctx, path)
	if not ctx.find(path, "nvcc") or ctx.find(path, "cpp_extension") or ctx.find(path, "CUDAExtension")
		or not cuda.build_script(ctx, path) then
		return {}
	end
	local uses, fns, seen = {}, {}, {}
	for _i, u in ipairs(cuda.tool_uses(ctx, path)) do
		if u.tool.name == "nvcc" then
			uses[#uses + 1] = u
			if u.fn and not seen[u.fn.name.text] then
				seen[u.fn.name.text] = true
				fns[#fns + 1] = "`" .. u.fn.name.text .. "`"
			end
		end
	end
	local first = uses[1]
	if not first then return {} end
	local a = { file = path, functions = table.concat(fns, ", "), code = first.node.text }
	local site = nvcc_site(ctx, path, { node = first.fn and first.fn.name or first.node },
		#fns > 0 and _("`{file}` compiles the project's own CUDA kernels with nvcc (in {functions})", a)
			or _("`{file}` compiles the project's own CUDA kernels with nvcc (`{code}`)", a))
	-- the script's other extensions (Cython helpers, a CPU NMS) are needed on the NPU host
	local cuda_exts, host_exts = extensions_by_kind(ctx, path)
	if #cuda_exts > 0 and #host_exts > 0 then
		a.cuda, a.host = table.concat(cuda_exts, ", "), table.concat(host_exts, ", ")
		a.functions = #fns > 0 and a.functions or "`" .. first.node.text .. "`"
		site.suggestion = _("The CUDA sources it builds are custom GPU kernels this check reports: port each to a torch or torch_npu operator, or rewrite it as an Ascend C custom operator. It also builds extensions from host sources only ({host}), which the NPU host needs too: keep those, and remove only the extensions with CUDA sources ({cuda}) and what sets nvcc up ({functions}), or make them build the ported operators.", a)
	end
	return { site }
end

---------------------------------------------------------------------------------------
-- Imports of the project's own CUDA extensions
--
-- A module the project builds from CUDA sources (faster_rcnn_pytorch's nms.gpu_nms, built
-- by its setup.py with nvcc; _ext.roi_pooling, built by cffi with an nvcc-built object:
-- cuda.own_extensions) cannot be built on the NPU host, so it does not exist there. An
-- import of it at a module's top level, outside a try whose handler goes on without it
-- (guard.lua), makes importing that module fail, and every module importing it in turn:
-- one error at the import, part of the extension's unit of work (`cuda:<its .cu file>`).
-- An import inside a function or an if runs only when chosen, and is not reported; nor is
-- an import of an extension its builder also builds without CUDA (detectron2's _C: a
-- CppExtension of the C++ sources where CUDA is missing), which exists on the NPU host.

-- Imports at a module's top level, directly or in a try block there.
local TOP_IMPORTS = [[
(module [(import_statement) (import_from_statement)] @imp)
(module (try_statement body: (block [(import_statement) (import_from_statement)] @imp)))
]]

-- What a module's name says apart from the device it runs on: its words without gpu,
-- cuda, cpu, py or host ("gpu_nms", "cpu_nms" and "py_cpu_nms" are all "nms").
local DEVICE_WORDS = { gpu = true, cuda = true, cu = true, cpu = true, py = true, host = true }
local function device_free_name(name)
	local kept = {}
	for w in name:lower():gmatch("[^_]+") do
		if not DEVICE_WORDS[w] then kept[#kept + 1] = w end
	end
	return table.concat(kept, "_")
end

-- Whether a module named other can stand in for the extension named name on the host: the
-- same name apart from the device words, and not the extension itself.
local function stands_in(name, other)
	local key = device_free_name(name)
	return other ~= name and key ~= "" and device_free_name(other) == key
end

-- The host implementations beside an extension (ext, a cuda.own_extensions entry): the
-- Python and Cython modules of its package that can stand in for it, and the modules the
-- importing file imports that can (path, imps): a list of project files.
local function host_fallbacks(ctx, path, ext, imps)
	local name = ext.stem:match("[^/]*$")
	local dir = ext.stem:match("^(.*)/[^/]*$") or ""
	local out, seen = {}, {}
	local function add(item)
		if not seen[item] then
			seen[item] = true
			out[#out + 1] = item
		end
	end
	local pyx = {}
	for _i, p in ipairs(ctx.files("%.pyx$")) do pyx[p] = true end
	for _i, imp in ipairs(imps) do
		for _j, module in ipairs({ imp.full or imp.module, imp.module }) do
			if stands_in(name, module:match("[^.]*$")) then
				local file = project.module_file(ctx, path, module)
				for _k, stem in ipairs(project.module_stems(ctx, path, module)) do
					file = file or (pyx[stem .. ".pyx"] and stem .. ".pyx")
				end
				if file then add(file) end
			end
		end
	end
	for _i, p in ipairs(ctx.files("%.pyx?$")) do
		local d, base = p:match("^(.*)/([^/]*)%.pyx?$")
		if (d or "") == dir and stands_in(name, base or p:match("^(.*)%.pyx?$")) then add(p) end
	end
	return out
end

-- The own CUDA extension an import names from the file at path (the module after from, or
-- the module it imports from it), with the name as written; nil when it names none.
local function imported_extension(ctx, path, imp, by_stem)
	for _i, module in ipairs({ imp.full or imp.module, imp.module }) do
		for _j, stem in ipairs(project.module_stems(ctx, path, module)) do
			if by_stem[stem] then return by_stem[stem], module end
		end
	end
	return nil
end

-- The sentence saying which other files fail to import with the file at path.
local function spread_of(ctx, path)
	local importing = project.importing(ctx, path)
	if #importing == 0 then return nil end
	local entries, scripts = project.entry_scripts(ctx), {}
	for _i, p in ipairs(importing) do
		if entries[p] then scripts[#scripts + 1] = p end
	end
	if #scripts > 0 then
		return _("The entry scripts importing it, directly or through other modules ({scripts}), fail the same way: the program cannot start.",
			{ scripts = quoted_list(scripts) })
	end
	return _("So do the project files importing it, directly or through other modules ({files}).",
		{ files = quoted_list(importing) })
end

-- The site of an unguarded import (statement node) of extension ext named module.
local function extension_import_site(ctx, path, node, ext, module, fallbacks)
	local a = { code = words.clip(node.text:match("^[^\n]*"), 80), module = module, builder = ext.builder,
		source = ext.source, file = path }
	local message = _("`{code}` imports `{module}`, the project's own CUDA extension built by `{builder}` from CUDA sources (`{source}`), which cannot be built on the NPU host: the module will not exist there, so importing `{file}` fails with ImportError before anything in it runs.", a)
	local spread = spread_of(ctx, path)
	a.fallbacks = quoted_list(fallbacks)
	return {
		file = path, node = node, severity = "error",
		message = spread and _("{verdict} {note}", { verdict = message, note = spread }) or message,
		suggestion = #fallbacks > 0
			and _("Guard the import (`try:` ... `except ImportError:`) and, where the extension is missing, select the host implementation the project already has ({fallbacks}); or port the kernel to torch or torch_npu operators (see the finding on `{source}`) and import that instead.", a)
			or _("Guard the import (`try:` ... `except ImportError:`) and give the NPU host another implementation where the extension is missing; or port the kernel to torch or torch_npu operators (see the finding on `{source}`) and import that instead.", a),
		key = "extension-import", unit = "cuda:" .. ext.source:match("[^/]*$"),
	}
end

-- The imports in path that make it fail on the NPU host because they name one of the
-- project's own CUDA extensions (see above): one site per import statement.
function blockers.extension_imports(ctx, path)
	local exts, by_stem, named = cuda.own_extensions(ctx), {}, false
	for _i, e in ipairs(exts) do
		-- the extension's own wrapper (cffi's _ext/name/__init__.py) is part of it
		if path:sub(1, #e.stem + 1) == e.stem .. "/" then return {} end
		-- one built without CUDA where CUDA is missing exists on the NPU host: its import
		-- does not fail (its kernels' findings say what runs on the CPU only)
		if not e.host_build then by_stem[e.stem] = e end
		named = named or ctx.find(path, e.stem:match("[^/]*$"))
	end
	if not named or not ctx.find(path, "import") then return {} end
	local top = {}
	for _i, m in ipairs(ctx.query(path, TOP_IMPORTS) or {}) do top[m.imp.start_byte] = true end
	local imps = py.imports(ctx, path) or {}
	local judge, out, done = guard.judge(ctx), {}, {}
	for _i, imp in ipairs(imps) do
		local b = imp.node.start_byte
		local ext, module
		if top[b] and not done[b] then ext, module = imported_extension(ctx, path, imp, by_stem) end
		local v = ext and judge:verdict(path, imp.node, module, imps)
		if ext and not (v and (v.kind == "fallback" or v.kind == "reinstalls")) then
			done[b] = true
			out[#out + 1] = extension_import_site(ctx, path, imp.node, ext, module, host_fallbacks(ctx, path, ext, imps))
		end
	end
	return out
end

local CHANNELS_LAST = { ["torch.channels_last"] = true, ["torch.channels_last_3d"] = true }

-- torch.channels_last / torch.channels_last_3d.
function blockers.channels_last(ctx, path, map)
	return dotted_sites(ctx, path, map, function(name, text)
		if not CHANNELS_LAST[name] then return nil end
		return _("`{api}` selects the channels_last memory format, which automatic migration does not support.", { api = text }),
			_("Drop the memory_format argument and use `.contiguous()` (the default layout) on the NPU.")
	end)
end

local JIT = { ["torch.jit.script"] = true, ["torch.jit.script_method"] = true }

-- torch.jit.script / script_method, as calls or decorators.
function blockers.jit_script(ctx, path, map)
	return dotted_sites(ctx, path, map, function(name, text)
		if not JIT[name] then return nil end
		return _("`{api}` compiles TorchScript; automatic migration (transfer_to_npu) turns it into a no-op.", { api = text }),
			_("If the scripted object is only an optimisation, remove the scripting; if the code needs a real ScriptModule (saving, export), plan tool-based migration instead of transfer_to_npu.")
	end)
end

local DATA_PARALLEL = {
	["torch.nn.DataParallel"] = true,
	["torch.nn.parallel.DataParallel"] = true,
	["torch.nn.parallel.data_parallel"] = true,
}

-- torch.nn.DataParallel and torch.nn.parallel.data_parallel. One in a branch that only
-- CUDA takes (cuda.cuda_only_parallel) is a warning: the NPU runs the other path, on one
-- device, until the code moves to DistributedDataParallel.
function blockers.data_parallel(ctx, path, map)
	local sites = dotted_sites(ctx, path, map, function(name, text)
		if not DATA_PARALLEL[name] then return nil end
		return _("`{api}` (single-process multi-GPU training) is not supported on NPU.", { api = text }),
			_("Switch to DistributedDataParallel: one process per NPU started by torchrun, init_process_group('hccl'), and the model wrapped with DDP.")
	end)
	for _i, s in ipairs(sites) do
		local test = cuda.cuda_only_parallel(ctx, path, s.node.start_byte)
		if test then
			local a = { api = s.node.text:match("^[^\n(]*"), test = test }
			s.severity = "warning"
			s.message = _("`{api}` (single-process multi-GPU training, which the NPU does not support) is in a branch only CUDA takes (`{test}`): as the code stands the NPU never reaches it.", a)
			s.suggestion = _("To train on several NPUs, switch to DistributedDataParallel: one process per NPU started by torchrun, init_process_group('hccl'), and the model wrapped with DDP.")
		end
	end
	return sites
end

-- The vendor list that judges the project: the one for the PyTorch version its own
-- (shallowest) requirement files pin, else
-- the nearest at or below it (the oldest for a version before the first list, the newest
-- for a version after the last, and for a project whose version is unknown). Returns
-- { version = the list's PyTorch version, why = a sentence saying why }, or nil when the
-- table names no lists.
function blockers.op_list(ctx)
	local lists = {}
	for _i, l in ipairs(ctx.data("unsupported_ops").lists or {}) do lists[#lists + 1] = l.version end
	if #lists == 0 then return nil end -- a table without per-version lists: every entry counts
	table.sort(lists, function(a, b) return ep.vcmp(a, b) < 0 end)
	local newest, pins = lists[#lists], ep.torch_pins(ctx)
	-- the project's own files decide (the shallowest ones holding a torch pin): an example's
	-- requirements deeper down pin the example, not the project
	local pin, shown
	for _i, p in ipairs(pins) do
		if ep.pin_depth(p) > ep.pin_depth(pins[1]) then break end
		if p.op == "==" or p.op == "===" then pin = p break end
	end
	-- a compatible release of three parts (~=2.6.0) or a range within one minor version
	-- (>=2.1,<2.2 on one line) fixes the minor version the lists go by
	for _i, p in ipairs(pin and {} or pins) do
		if ep.pin_depth(p) > ep.pin_depth(pins[1]) then break end
		local major, minor = p.version:match("^(%d+)%.(%d+)")
		if p.op == "~=" and p.version:match("^%d+%.%d+%.%d+") then
			pin, shown = p, major .. "." .. minor .. ".*"
			break
		end
		if major and (p.op == ">=" or p.op == ">") then
			-- the upper bound follows the lower one in the same requirement: ",<2.2"
			local line = (ctx.lines(p.file) or {})[p.line] or ""
			local at = line:find(p.text, 1, true)
			local um, un, up = line:sub((at or 1) + #p.text):match("^%s*,%s*<%s*(%d+)%.(%d+)%.?(%d*)")
			if um == major and tonumber(un) == tonumber(minor) + 1 and (up == "" or tonumber(up) == 0) then
				pin, shown = p, major .. "." .. minor .. ".*"
				break
			end
		end
	end
	if not pin then
		if pins[1] then
			return { version = newest, why = _("The project's PyTorch version is unknown (`{spec}` in {file} is a range), so the newest vendor list judged it; pin torch to be judged by the list for its version.",
				{ spec = pins[1].text, file = pins[1].file }) }
		end
		return { version = newest, why = _("The project's PyTorch version is unknown (no torch pin in its requirements, setup or environment files), so the newest vendor list judged it; pin torch to be judged by the list for its version.") }
	end
	local torch = ep.torch_base(pin.version)
	local a = { torch = shown or torch, file = pin.file, line = pin.line, lists = table.concat(lists, ", ") }
	local chosen
	for _i, v in ipairs(lists) do
		if ep.vcmp(v, torch) <= 0 then chosen = v end
	end
	if not chosen then
		a.list = lists[1]
		return { version = lists[1], torch = torch, why = _("The project pins torch {torch} ({file} line {line}); the vendor's lists start at PyTorch {list}, so the oldest list judged it.", a) }
	end
	a.list = chosen
	if ep.vcmp(chosen, torch) == 0 then
		return { version = chosen, torch = torch, why = _("The project pins torch {torch} ({file} line {line}).", a) }
	end
	return { version = chosen, torch = torch, why = _("The project pins torch {torch} ({file} line {line}); the vendor has lists for PyTorch {lists}, and {list} is the nearest at or below it.", a) }
end

-- unsupported_ops.json split for lookups: the entries of the list that judges the project
-- (blockers.op_list, as list) and those of no list (dtype limits), by dotted name, and
-- tensor methods by method name (entries owned by another rule are left out).
function blockers.op_tables(ctx)
	local list = blockers.op_list(ctx)
	local names, methods = {}, {}
	for _i, e in ipairs(ctx.data("unsupported_ops").entries) do
		local listed = #(e.versions or {}) == 0
		for _j, v in ipairs(e.versions or {}) do listed = listed or not list or v == list.version end
		if listed and not e.owner then
			if e.kind == "method" and not e.generic then methods[e.method] = e end
			names[e.name] = e
		end
	end
	return { names = names, methods = methods, list = list }
end

-- The classes a type test names: isinstance(x, nn.RNN), issubclass(c, (nn.GRU, nn.LSTM)).
-- Naming a class there runs none of it.
local TYPE_TESTS = [[
(call function: (identifier) @f arguments: (argument_list . (_) . (_) @t)
 (#any-of? @f "isinstance" "issubclass"))
]]

-- The operands of comparisons: `t.dtype is torch.float64`, `get_default_dtype() ==
-- torch.float64`. A dtype compared with makes no tensor of that type.
local DTYPE_TESTS = [[
(comparison_operator [(attribute) (identifier)] @t)
]]

-- float64 is limited on the NPU, not on the host: a float64 tensor the code builds on the
-- CPU (`torch.zeros(n, dtype=torch.float64)`, dataset code, numpy values) never reaches it
local FLOAT64 = { ["torch.float64"] = true, ["torch.double"] = true, ["torch.Tensor.double"] = true }
local CALLS_WITH_ARGS = [[
(call arguments: (argument_list) @args) @call
]]
local ASSIGNS = [[
(assignment left: (identifier) @lhs right: (_) @rhs)
]]
local MOVES = { cuda = true, npu = true, to = true, to_empty = true }
-- The longest call chain starting where expr starts: `torch.zeros(n).to(dev)` for
-- `torch.zeros(n)` (the file's calls in source order; an outer call comes first).
local function chain_of(calls, expr)
	local best = expr
	for _i, m in ipairs(calls) do
		if m.call.start_byte > expr.start_byte then break end
		if m.call.start_byte == expr.start_byte and m.call.end_byte > best.end_byte then best = m.call end
	end
	return best
end
-- The innermost call whose arguments hold node, from the file's calls (in source order).
local function enclosing_call(calls, node)
	local best
	for _i, m in ipairs(calls) do
		if m.args.start_byte <= node.start_byte and node.end_byte <= m.args.end_byte then best = m.call end
		if m.call.start_byte > node.start_byte then break end
	end
	return best
end

local METHOD_QUERY = [[
(call function: (attribute object: (_) @obj attribute: (identifier) @m) arguments: (argument_list)) @call
]]

-- A module's attribute looked up by name: getattr(MODULE, NAME) with the module a name or
-- attribute chain (`getattr(nn, kind)`), and the conditions around code.
local GETATTRS = [[
(call function: (identifier) @g (#eq? @g "getattr")
  arguments: (argument_list . [(identifier) (attribute)] @mod . [(identifier) (string)] @name .)) @call
]]
local CHOICES = [[
(if_statement condition: (comparison_operator) @cond consequence: (block) @body)
(elif_clause condition: (comparison_operator) @cond consequence: (block) @body)
]]

-- The strings the innermost `if NAME in [...]:` or `if NAME == '...':` around node allows
-- NAME to be (a list), or nil when no such condition holds node.
local function allowed_values(choices, name, node)
	local best
	for _i, m in ipairs(choices) do
		if m.body.start_byte <= node.start_byte and node.end_byte <= m.body.end_byte
			and (not best or m.body.start_byte >= best.body.start_byte) then
			local set = m.cond.text:match("^" .. name .. "%s+in%s*(%b[])$") or m.cond.text:match("^" .. name .. "%s+in%s*(%b())$")
				or m.cond.text:match("^" .. name .. "%s+in%s*(%b{})$") or m.cond.text:match("^" .. name .. "%s*==%s*(.+)$")
			if set then best = { body = m.body, set = set } end
		end
	end
	if not best then return nil end
	local out = {}
	for _q, v in best.set:gmatch("(['\"])([%w_]+)%1") do out[#out + 1] = v end
	return out
end

-- The attributes of imported modules the file looks up by name: `getattr(nn, 'RNN')`, and
-- `getattr(nn, kind)` under `if kind in ['LSTM', 'GRU']:` (pytorch/examples' language
-- model), once per value the condition allows. Each {node=, text=, resolved=}; a name no
-- condition pins down is left out.
local function attribute_lookups(ctx, path, map)
	local out, choices = {}, nil
	for _i, m in ipairs(ctx.query(path, GETATTRS) or {}) do
		local module = py.expand(map, m.mod.text)
		if module ~= m.mod.text or map[m.mod.text] then
			local values
			if m.name.type == "string" then
				values = { py.string_value(m.name.text) }
			else
				choices = choices or ctx.query(path, CHOICES) or {}
				values = allowed_values(choices, m.name.text, m.call) or {}
			end
			for _j, v in ipairs(values) do
				out[#out + 1] = { node = m.call, text = m.call.text, resolved = module .. "." .. v }
			end
		end
	end
	return out
end

-- Uses of APIs unsupported or limited on NPU (by name through aliases, and tensor methods);
-- a class named only in a type test (isinstance, issubclass) is not used, nor is float64
-- compared with (a dtype test), and float64 on a value the code keeps on the host
-- (host.lua) is not limited.
function blockers.unsupported_ops(ctx, path, tables, map)
	local out = {}
	-- an export target's API (unsupported_ops.json `target`: optimize_for_mobile makes a
	-- model for PyTorch Mobile, run on a CPU) is no blocker: on a model on the CPU it does
	-- not meet the NPU at all. In a branch the code runs on the CPU only (host.cpu_only) it
	-- is host-side (info, survey only); elsewhere a warning to give it the model on the CPU.
	local function target_site(node, text, e)
		local a = { api = words.api(text, e.name),
			what = _(e.target.what), list = tables.list and tables.list.version }
		local why = host.cpu_only(ctx, path, node)
		if why then
			a.why = why
			out[#out + 1] = {
				file = path, node = node, severity = "info", category = "host_side", only = "survey",
				message = _("{api} {what}: an export target other than the NPU, and the code runs it on the CPU only ({why}), so the vendor's list of what the NPU does not support does not apply. Not affected on the NPU.", a),
				suggestion = _("Nothing to change for the NPU: keep exporting this format on the CPU, as the code requires."),
				data = { api = e.name, list = a.list, target = true },
			}
			return
		end
		out[#out + 1] = {
			file = path, node = node, severity = "warning", category = "export",
			message = a.list and _("{api} {what}: an export target other than the NPU. The vendor lists it as unsupported on the NPU (list for PyTorch {list}), so give it the model on the CPU; nothing in training or in running the model on the NPU needs it.", a)
				or _("{api} {what}: an export target other than the NPU. It is not supported on the NPU, so give it the model on the CPU; nothing in training or in running the model on the NPU needs it.", a),
			suggestion = _("Run this export on a CPU copy of the model (`model.cpu()` before tracing, the example input on the CPU too): the models it makes run on a CPU, Vulkan or Metal device, and on the CPU the export works on an Ascend host as on any other."),
			data = { api = e.name, list = a.list, target = true },
		}
	end
	local function site(node, text, e)
		if e.target then return target_site(node, text, e) end
		local unsupported = e.status == "unsupported"
		local a = { api = words.api(text, e.name) }
		local message
		if tables.list and #(e.versions or {}) > 0 then
			a.list, a.why = tables.list.version, tables.list.why
			message = _("{api} is not supported on NPU (vendor list for PyTorch {list}). {why}", a)
		else
			message = unsupported and _("{api} is not supported on NPU.", a) or _("{api} is limited on NPU.", a)
		end
		-- a torch.backends setting (opt_einsum.enabled) runs no operator: setting it fails
		-- nowhere, only what it asks for is not supported
		local setting = e.name:match("^torch%.backends%.") ~= nil
		out[#out + 1] = {
			file = path, node = node, severity = (unsupported and not setting) and "error" or "warning",
			message = message,
			suggestion = e.notes and _("Note: {notes}.", { notes = _(e.notes) })
				or setting and _("This is a setting, not an operator: setting it does not fail, but do not count on its effect on the NPU; keep it for the GPUs.")
				or _("Replace it with supported operators (or run this part on the CPU) and verify the results against the GPU run."),
			data = { api = e.name, list = a.list },
		}
	end
	local seen = {}
	local tested
	local function type_test(node)
		tested = tested or ctx.query(path, TYPE_TESTS) or {}
		for _i, m in ipairs(tested) do
			if m.t.start_byte <= node.start_byte and node.end_byte <= m.t.end_byte then return true end
		end
		return false
	end
	local compared
	local function dtype_test(node)
		compared = compared or ctx.query(path, DTYPE_TESTS) or {}
		for _i, m in ipairs(compared) do
			if m.t.start_byte == node.start_byte and m.t.end_byte == node.end_byte then return true end
		end
		return false
	end
	local h, calls
	-- float64 whose tensor stays on the host: the value the dtype is given to (or the
	-- .double() call) is host-side, the chain it starts moves it nowhere, and no name it is
	-- bound to is moved later (`acc = torch.zeros(n, dtype=torch.float64)` then
	-- `acc.cuda()` puts the float64 on the device)
	local assigns
	local function moved_later(chain)
		assigns = assigns or ctx.query(path, ASSIGNS) or {}
		for _i, m in ipairs(assigns) do
			if m.rhs.start_byte == chain.start_byte and m.rhs.end_byte == chain.end_byte then
				local text = ctx.read(path) or ""
				local pat = "%f[%w_]" .. m.lhs.text .. "%s*%.%s*([%a_]+)%s*%("
				for method in text:gmatch(pat) do
					if MOVES[method] then return true end
				end
			end
		end
		return false
	end
	local function on_host(node, is_call)
		h = h or host.file(ctx, path, map)
		calls = calls or ctx.query(path, CALLS_WITH_ARGS) or {}
		local expr = is_call and node or enclosing_call(calls, node)
		if not expr then return h:why(node) end
		local chain = chain_of(calls, expr)
		local why = h:why(chain, node)
		if why and moved_later(chain) then return nil end
		return why
	end
	local function not_affected(node, text, why)
		local site = host.not_affected(path, node, text, why)
		site.only = "survey" -- a note for the survey; adapt has nothing to do here
		out[#out + 1] = site
	end
	for _i, r in ipairs(refs.dotted(ctx, path, map)) do
		local e = tables.names[r.resolved]
		if e and FLOAT64[e.name] and dtype_test(r.node) then e = nil end
		local why = e and FLOAT64[e.name] and on_host(r.node)
		if why then
			not_affected(r.node, r.text, why)
			e = nil
		end
		if e and not type_test(r.node) then
			seen[r.node.start_byte] = true
			site(r.node, r.text, e)
		end
	end
	for _i, r in ipairs(attribute_lookups(ctx, path, map)) do
		local e = tables.names[r.resolved]
		if e then site(r.node, r.text, e) end
	end
	for _i, m in ipairs(ctx.query(path, METHOD_QUERY) or {}) do
		local e = tables.methods[m.m.text]
		local why = e and FLOAT64[e.name] and on_host(m.call, true)
		if why then
			not_affected(m.call, "." .. m.m.text .. "()", why)
			e = nil
		end
		if e and not seen[m.call.start_byte] and py.expand(map, m.obj.text) ~= "torch" then
			site(m.call, "." .. m.m.text .. "()", e)
		end
	end
	table.sort(out, function(a, b) return a.node.start_byte < b.node.start_byte end)
	return out
end

-- Triggers (see plugins/README.md) for a check using unsupported_ops: for each listed API
-- the group of all its name's parts (code naming torch.hub.load, through any import or
-- alias, spells out "torch", "hub" and "load"), and ".method(" for tensor methods.
-- `triggers = blockers.op_triggers` wakes the check only for files that can use one.
function blockers.op_triggers(data)
	local out, seen = {}, {}
	for _i, e in ipairs(data("unsupported_ops").entries) do
		if not e.owner then
			local group = {}
			if e.kind == "method" then
				group[1] = "." .. e.method .. "("
			else
				for part in e.name:gmatch("[^%.]+") do group[#group + 1] = part end
			end
			local key = table.concat(group, " ")
			if not seen[key] and #group <= 16 then
				seen[key] = true
				out[#out + 1] = #group == 1 and group[1] or group
			end
		end
	end
	return out
end

-- Trigger literals for every detector above: a file holding none of them cannot contain
-- an extension builder, DataParallel, channels_last, torch.jit.script or a listed API.
function blockers.triggers(data)
	local out = blockers.op_triggers(data)
	for _i, t in ipairs({ "cpp_extension", "CUDAExtension", "DataParallel", "data_parallel",
		"channels_last", "jit" }) do
		out[#out + 1] = t
	end
	return out
end

-- The sites of a test file as information: a test checks the code, it is not how the
-- project runs, so it adds no effort and does not choose the migration strategy.
-- suggestion says what to do with the test on the NPU. Returns the sites, changed in place.
function blockers.as_test_code(sites, suggestion)
	for _i, s in ipairs(sites) do
		s.severity = "info"
		s.message = _("{message} This is test code, so it adds no effort and does not decide the strategy.", { message = s.message })
		s.suggestion = suggestion
	end
	return sites
end

-- The sites of a file that run only when a setting turns them on, off by default
-- (train.off_by_default: `if args.channels_last:` of a store_true option), as
-- information: they add no effort. Returns the sites, those changed in place.
function blockers.as_opt_in(ctx, path, sites)
	for _i, s in ipairs(sites) do
		local off = train.off_by_default(ctx, path, s.node)
		if off then
			s.severity = "info"
			s.message = _("{message} It runs only when a setting turns it on, and that is off by default ({off}), so it adds no effort.",
				{ message = s.message, off = off })
		end
	end
	return sites
end

-- The unsupported operators of a file, looked up by the assess survey and the adapt
-- phase's list alike: worked out once per file and run (ctx.shared; the tables are the
-- project's, the aliases the file's). In test code they are information (as_test_code).
local unsupported_ops = blockers.unsupported_ops
function blockers.unsupported_ops(ctx, path, tables, map)
	return ctx.shared("blockers.unsupported_ops", path, function()
		local sites = unsupported_ops(ctx, path, tables, map)
		if not project.test_file(path) then return sites end
		return blockers.as_test_code(sites,
			_("A test that runs it on the NPU fails there: skip the test on the NPU or run it on the CPU."))
	end)
end

return blockers
