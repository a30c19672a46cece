-- project: what the project itself defines, so a check never takes the project's own
-- code for a third-party library.
--
--   local project = require("project")
--   local own = project.own_modules(ctx)
--   if own:has("megatron", "examples/run.py") then ... end
--
-- A name is the project's own when Python would import it from the project:
--   * a package or module at an import root: the project root, a `src/` folder, and every
--     folder holding setup.py, setup.cfg or pyproject.toml (`megatron/…` beside
--     pretrain_gpt.py, with or without an __init__.py);
--   * the outermost folder of a regular package anywhere (a folder with __init__.py whose
--     parent has none), except below a folder that holds copies of other projects
--     (third_party, 3rdparty, vendor, vendored, external, submodules);
--   * a module or package beside the importing file when that file is a script, not a
--     module of a package (a script's own folder is first on sys.path).
--
-- project.module_file(ctx, path, module) gives the project file an import names,
-- project.module_stems(ctx, path, module) where the module may live (a compiled one too),
-- project.importing(ctx, path) the files importing a file, directly or through others,
-- project.imported_modules(ctx, path) the project files a file's imports name, and
-- project.program(ctx, path) the files of the programs that run a file (see there), and
-- project.program_mentions(ctx, path, word) the first of them holding a word.
-- project.launched_scripts(ctx) gives the files the project says it runs,
-- project.entry_scripts(ctx) its entry scripts (see there for the rule) and
-- project.build_script(ctx, path) whether a file builds the project, and
-- project.test_file(path) whether a file is test code.
-- project.program_files(ctx) ctx.python_files() without the test code.

local project = {}

local VENDORED = { third_party = true, ["third-party"] = true, ["3rdparty"] = true, vendor = true,
	vendored = true, external = true, externals = true, submodules = true }

local function dirname(p) return p:match("^(.*)/[^/]*$") or "" end

-- Every Python file of the project as a set (path -> true), once per run.
local py_set
local function python_files(ctx)
	if not py_set then
		py_set = {}
		for _i, p in ipairs(ctx.files("%.py$")) do py_set[p] = true end
	end
	return py_set
end

local function vendored(dir)
	for part in (dir .. "/"):gmatch("([^/]*)/") do
		if VENDORED[part:lower()] then return true end
	end
	return false
end

-- The importable name a path provides inside folder dir ("" is the root): the first
-- component below dir, without ".py" when it is a module file; nil when the path is not
-- below dir or the name is not an identifier.
local function name_below(dir, path)
	local rest = path
	if dir ~= "" then
		if path:sub(1, #dir + 1) ~= dir .. "/" then return nil end
		rest = path:sub(#dir + 2)
	end
	local first, more = rest:match("^([^/]+)(/?)")
	if not first then return nil end
	if more == "" then first = first:match("^(.*)%.py$") end
	if first and first:match("^[%a_][%w_]*$") then return first end
	return nil
end

-- The project's own importable names, once per plugin run: a table with
-- has(name, importing_path) and the set `names` (name -> true).
function project.own_modules(ctx)
	local py_files = ctx.files("%.py$")
	local all = {}
	for _i, p in ipairs(py_files) do all[p] = true end
	local roots = { [""] = true, src = true }
	for _i, p in ipairs(ctx.files()) do
		local base = p:match("[^/]*$")
		if base == "setup.py" or base == "setup.cfg" or base == "pyproject.toml" then
			roots[dirname(p)] = true
		end
	end
	local names, dirs = {}, {}
	for _i, p in ipairs(py_files) do
		local d = dirname(p)
		dirs[d] = true
		for root in pairs(roots) do
			local n = name_below(root, p)
			if n then names[n] = true end
		end
		local base = p:match("[^/]*$")
		if base == "__init__.py" and d ~= "" and not all[dirname(d) .. (dirname(d) == "" and "" or "/") .. "__init__.py"]
			and not vendored(d) then
			names[d:match("[^/]*$")] = true
		end
	end
	local own = { names = names }
	-- name is importable from the importing file's own folder: a script's folder is on
	-- sys.path, a package module's is not (its absolute imports skip its siblings)
	local function beside(name, path)
		local d = dirname(path)
		local pre = d == "" and "" or d .. "/"
		if all[pre .. "__init__.py"] then return false end
		if all[pre .. name .. ".py"] then return true end
		for p in pairs(all) do
			if p:sub(1, #pre + #name + 1) == pre .. name .. "/" then return true end
		end
		return false
	end
	local cache = {}
	function own:has(name, path)
		if names[name] then return true end
		if not path then return false end
		local k = name .. "\0" .. dirname(path)
		if cache[k] == nil then cache[k] = beside(name, path) end
		return cache[k]
	end
	return own
end

-- The Python files the project says it runs (a set of paths):
--   * those named on a launch line of its READMEs, docs and shell scripts: `python
--     train.py`, `python3 -u tools/train.py`, `torchrun --nproc_per_node=8 train.py`,
--     `deepspeed train.py`, `accelerate launch train.py`, `python -m pkg.train` (after
--     `python -m torch.distributed.run|launch` the script that follows), a path taken from
--     the project's root or, failing that, from the folder of the file naming it;
--   * the modules of the console scripts setup.py, setup.cfg or pyproject.toml install
--     (`train = "pkg.cli:main"`, "train=pkg.cli:main").
local DOCS = { "%.md$", "%.rst$", "%.txt$", "%.sh$", "%.bash$", "%.zsh$", "/?Makefile$", "/?Dockerfile$", "%.ya?ml$" }
local LAUNCHER = { torchrun = true, deepspeed = true, ["torch.distributed.run"] = true,
	["torch.distributed.launch"] = true }

-- The file `python -m mod` runs, from folder `from` or the project root, or nil.
local function run_file(all, mod, from)
	local rel = mod:gsub("%.", "/")
	for _i, c in ipairs({ rel .. ".py", rel .. "/__main__.py", "src/" .. rel .. ".py", "src/" .. rel .. "/__main__.py" }) do
		local p = from ~= "" and all[from .. "/" .. c] and (from .. "/" .. c) or (all[c] and c)
		if p then return p end
	end
	return nil
end

-- The script or module a launch line runs, or nil.
local function launched(words)
	local runs = false
	local i = 1
	while i <= #words do
		local w = words[i]
		local base = w:match("[^/]*$")
		if base:match("^python[%d.]*$") or LAUNCHER[base] or (base == "accelerate" and words[i + 1] == "launch") then
			runs = true
		elseif runs and w == "-m" and words[i + 1] then
			if not LAUNCHER[words[i + 1]] then return nil, words[i + 1] end
			i = i + 1
		elseif runs and w:match("%.py$") and not w:find("^%-") then
			return (w:gsub("^%./", "")), nil
		end
		i = i + 1
	end
	return nil
end

-- The project's Python file a launch line of the file in folder dir runs, or nil.
local function launched_file(all, dir, line)
	local words = {}
	for w in line:gmatch("[^%s`'\"$;&|()]+") do words[#words + 1] = w end
	local script, mod = launched(words)
	if script then
		return all[script] and script or (dir ~= "" and all[dir .. "/" .. script] and dir .. "/" .. script) or nil
	elseif mod then
		return run_file(all, mod, "")
	end
	return nil
end

-- As a set path -> {file=, line=, text=}: where the project first says it runs the file
-- (the file and line of the launch line or the console script, the line's text). Once per
-- run.
local launched_of
function project.launched_scripts(ctx)
	if launched_of then return launched_of end
	local all, out = python_files(ctx), {}
	-- the command, from its launcher to the end of the line or of the inline code holding
	-- it (`python3 convert.py` in "... and convert: `python3 convert.py`.")
	local function command(line)
		local at
		for _i, w in ipairs({ "python", "torchrun", "deepspeed", "accelerate" }) do
			local s = line:find("%f[%w]" .. w)
			if s and (not at or s < at) then at = s end
		end
		local text = at and line:sub(at):match("^[^`]*") or line
		return (text:gsub("^%s+", ""):gsub("%s+$", ""))
	end
	local function add(p, f, n, line)
		if p and not out[p] then out[p] = { file = f, line = n, text = command(line) } end
	end
	for _i, f in ipairs(ctx.files()) do
		local doc = false
		for _j, pat in ipairs(DOCS) do doc = doc or f:find(pat) ~= nil end
		local text = doc and ctx.read(f)
		if text and (text:find("python", 1, true) or text:find("torchrun", 1, true) or text:find("deepspeed", 1, true)
			or text:find("accelerate", 1, true)) then
			local dir = dirname(f)
			for n, line in ipairs(ctx.lines(f) or {}) do
				if line:find("python", 1, true) or line:find("torchrun", 1, true) or line:find("deepspeed", 1, true)
					or line:find("accelerate", 1, true) then
					add(launched_file(all, dir, line), f, n, line)
				end
			end
		end
		local base = f:match("[^/]*$")
		if base == "setup.py" or base == "setup.cfg" or base == "pyproject.toml" then
			for n, line in ipairs(ctx.lines(f) or {}) do
				for mod in line:gmatch("=[%s\"']*([%a_][%w_.]*):[%a_]") do
					add(run_file(all, mod, dirname(f)), f, n, line)
				end
			end
		end
	end
	launched_of = out
	return out
end

-- The project's Python file the shell command holding line n of the file at path runs
-- (a launch line as for entry_scripts, its continuation lines ending in "\\" joined), or
-- nil.
function project.launched_at(ctx, path, n)
	local lines = ctx.lines(path) or {}
	local first, last = n, n
	while first > 1 and lines[first - 1]:match("\\%s*$") do first = first - 1 end
	while last < #lines and (lines[last] or ""):match("\\%s*$") do last = last + 1 end
	local parts = {}
	for i = first, last do parts[#parts + 1] = (lines[i] or ""):gsub("\\%s*$", "") end
	return launched_file(python_files(ctx), dirname(path), table.concat(parts, " "))
end

-- The paths without suffix where the module an import in the file at path names may live,
-- in the order Python looks ("pkg/sub" for pkg/sub.py, pkg/sub/__init__.py or a compiled
-- pkg/sub.*.so). A relative name ("." and "..ops.k") is looked up from the file's package;
-- an absolute one from the file's own folder (a script's folder is first on sys.path), the
-- folder above the outermost package holding the file (its import root), the project root
-- and src/.
function project.module_stems(ctx, path, module)
	local dir = dirname(path)
	local all = python_files(ctx)
	local dots, rest = module:match("^(%.*)(.*)$")
	local bases
	if #dots > 0 then
		local base = dir
		for _i = 2, #dots do base = dirname(base) end
		bases = { base }
	else
		local root = dir
		while root ~= "" and all[root .. "/__init__.py"] do root = dirname(root) end
		bases = { dir, root, "", "src" }
	end
	local rel = rest:gsub("%.", "/")
	local out = {}
	for _i, base in ipairs(bases) do
		local stem = base == "" and rel or (rel == "" and base or base .. "/" .. rel)
		if stem ~= "" then out[#out + 1] = stem end
	end
	return out
end

-- The project file a module imported by the file at path stands for (see
-- project.module_stems for where it is looked up), or nil.
local resolved = {} -- folder .. "\0" .. module -> file or false
function project.module_file(ctx, path, module)
	local key = dirname(path) .. "\0" .. module
	if resolved[key] ~= nil then return resolved[key] or nil end
	local all = python_files(ctx)
	resolved[key] = false
	for _i, stem in ipairs(project.module_stems(ctx, path, module)) do
		if all[stem .. ".py"] or all[stem .. "/__init__.py"] then
			resolved[key] = all[stem .. ".py"] and stem .. ".py" or stem .. "/__init__.py"
			break
		end
	end
	return resolved[key] or nil
end

-- The import statements of a Python file, read from its lines without a parse (the
-- import graph of a large project is read in well under a second): a list of {module=,
-- names=} with the module as written ("pkg.sub", ".rel") and, for `from X import a, b` or
-- a parenthesised list over several lines, the imported names. A statement inside a
-- docstring counts too, which makes the graph larger, never smaller.
local function import_statements(lines)
	local out, open = {}, nil
	local function names_of(list, into)
		for item in list:gsub("#.*", ""):gsub("[()\\]", " "):gmatch("[^,;]+") do
			into[#into + 1] = item:match("^%s*([%w_.]+)")
		end
	end
	for _i, line in ipairs(lines) do
		if open then
			names_of(line, open.names)
			if line:find(")", 1, true) then open = nil end
		elseif line:find("import", 1, true) then
			local mod, rest = line:match("^[ \t]*from[ \t]+([%w_.]+)[ \t]+import([%s(].*)$")
			if mod then
				open = { module = mod, names = {} }
				out[#out + 1] = open
				names_of(rest, open.names)
				if not (rest:find("(", 1, true) and not rest:find(")", 1, true)) then open = nil end
			else
				local list = line:match("^[ \t]*import[ \t]+(.*)$")
				if list then
					local mods = {}
					names_of(list, mods)
					for _j, m in ipairs(mods) do out[#out + 1] = { module = m, names = {} } end
				end
			end
		end
	end
	return out
end

-- The project files a Python file imports: the module each import names (for `from pkg
-- import name`, the submodule pkg/name.py when there is one) and the packages above it,
-- whose __init__.py runs first. {list=, set=, named=}, named the files the imports name
-- themselves (the submodule, else the module named after `from`); cached per run.
local imported = {}
local function imported_files(ctx, path)
	if imported[path] then return imported[path] end
	local list, set, named, seen = {}, { [path] = true }, {}, { [path] = true }
	local function add(name)
		local f = project.module_file(ctx, path, name)
		if f and not set[f] then
			set[f] = true
			list[#list + 1] = f
		end
		return f
	end
	local function name(f)
		if f and not seen[f] then
			seen[f] = true
			named[#named + 1] = f
		end
	end
	for _i, imp in ipairs(ctx.find(path, "import") and import_statements(ctx.lines(path) or {}) or {}) do
		local mod = imp.module
		local sep = mod:sub(-1) == "." and "" or "."
		local whole = #imp.names == 0
		for _j, n in ipairs(imp.names) do
			local f = add(mod .. sep .. n)
			whole = whole or not f
			name(f)
		end
		local f = add(mod)
		if whole then name(f) end
		local prefix = mod:match("^%.*")
		for part in mod:sub(#prefix + 1):gmatch("([^.]+)%.") do
			prefix = prefix .. part
			add(prefix)
			prefix = prefix .. "."
		end
	end
	set[path] = nil
	imported[path] = { list = list, set = set, named = named }
	return imported[path]
end

-- The project files a Python file's imports name themselves (a list): for `from pkg import
-- name` the submodule pkg/name.py when there is one, else pkg; never the packages above,
-- whose __init__.py runs first but hands the file nothing it did not name.
function project.imported_modules(ctx, path)
	return imported_files(ctx, path).named
end

-- The project files that import the file at path (a list): among the files naming its
-- module (or, for a package's __init__.py, importing relatively inside the package), the
-- ones whose imports resolve to it. Cached per run.
local importers_of, imported_by = {}, nil
local function importers(ctx, path)
	if importers_of[path] then return importers_of[path] end
	-- every file's imports read once, as a map from a file to the files whose imports
	-- resolve to it (in the order of ctx.files): walking importers file by file would
	-- search every file again for each one reached
	if not imported_by then
		imported_by = {}
		for _i, p in ipairs(ctx.files("%.py$")) do
			for f in pairs(imported_files(ctx, p).set) do
				imported_by[f] = imported_by[f] or {}
				table.insert(imported_by[f], p)
			end
		end
	end
	local out = {}
	local init = path:match("^(.*)/__init__%.py$")
	local name = init and init:match("[^/]*$") or path:match("([^/]*)%.py$")
	for _i, p in ipairs(imported_by[path] or {}) do
		if p ~= path and (ctx.find(p, name) or (init and p:sub(1, #init + 1) == init .. "/" and ctx.find(p, "from ."))) then
			out[#out + 1] = p
		end
	end
	importers_of[path] = out
	return out
end

-- Walks the files reached from the list seeds by following step(path) (a list) again and
-- again, nearest first. Returns the first for which stop(path) is true and the set of the
-- files reached so far; when none is, nil, the set of every file reached and their list
-- in the order reached.
local function walk(seeds, step, stop)
	local list, set = {}, {}
	for _i, p in ipairs(seeds) do
		if not set[p] then
			set[p] = true
			list[#list + 1] = p
		end
	end
	local i = 1
	while list[i] do
		if stop and stop(list[i]) then return list[i], set end
		for _j, p in ipairs(step(list[i])) do
			if not set[p] then
				set[p] = true
				list[#list + 1] = p
			end
		end
		i = i + 1
	end
	return nil, set, list
end

-- The nearest of the Python file at path and the project files importing it, directly or
-- through others (what may run it), for which wanted(file) is true; nil when none is.
function project.runner(ctx, path, wanted)
	return (walk({ path }, function(p) return importers(ctx, p) end, wanted))
end

-- The project files that import the Python file at path, directly or through others
-- (a list, nearest first): every one of them fails to import when the file does.
function project.importing(ctx, path)
	local _found, _set, list = walk({ path }, function(p) return importers(ctx, p) end)
	table.remove(list, 1)
	return list
end

-- The files of the programs that run the Python file at path (a set): the file, and
-- every project file it imports, directly or through others; unless the file is a script
-- (it has a `__main__` block), the project files importing it, directly or through others
-- (the scripts that run it), and everything they import too: a training loop in a module
-- (a Trainer class) runs the model the script importing it passes in. Imports are read
-- without a parse and only of the files reached (and of those naming a file reached, to
-- find its importers). Cached per run.
local programs = {}
function project.program(ctx, path)
	if not programs[path] then
		local runners = { path }
		if not ctx.find(path, "__main__") then
			runners = select(3, walk({ path }, function(p) return importers(ctx, p) end))
		end
		local _found, set = walk(runners, function(p) return imported_files(ctx, p).list end)
		programs[path] = set
	end
	return programs[path]
end

-- The file at path if it holds word (a plain substring), else a file of the programs
-- running it (project.program) that does, else nil.
-- Each file is searched for a word once: the programs of a package's modules overlap.
local mentions = {}
function project.program_mentions(ctx, path, word)
	local holds = mentions[word]
	if not holds then
		holds = {}
		mentions[word] = holds
	end
	local function has(p)
		if holds[p] == nil then holds[p] = ctx.find(p, word) ~= nil end
		return holds[p]
	end
	if has(path) then return path end
	for p in pairs(project.program(ctx, path)) do
		if has(p) then return p end
	end
	return nil
end

-- Whether a file builds the project: a setup.py that uses setuptools, distutils or
-- scikit-build (not a module of the package that happens to have the name: dinov2's
-- eval/setup.py builds models, and calls a setup() of its own), or a script building an
-- extension with torch.utils.ffi's create_extension (torch before 1.0), whose CUDA test
-- decides whether CUDA sources are compiled in.
function project.build_script(ctx, path)
	if path:match("[^/]*$") ~= "setup.py" then
		return ctx.find(path, "torch.utils.ffi") ~= nil and ctx.find(path, "create_extension") ~= nil
	end
	return ctx.find(path, "setuptools") ~= nil or ctx.find(path, "distutils") ~= nil or ctx.find(path, "skbuild") ~= nil
end

---------------------------------------------------------------------------------------
-- Entry scripts
--
-- An entry script is a program the project runs to train or run its model: where `import
-- torch_npu` (or transfer_to_npu) goes and where a consultant starts reading. A Python
-- file is one when all of these hold:
--  * something runs it as a program:
--     - the project says it runs it (a launch line or a console script:
--       project.launched_scripts);
--     - or it has an `if __name__ == "__main__":` block, unless it is a module of the
--       project with a self-test: a file another project file imports (tests aside) whose
--       code parses no command line (argparse, sys.argv, click, fire ...). faster_rcnn's
--       vgg16.py and its dataset modules, whose blocks build one object and open a shell,
--       are modules; a script that tests import for its functions stays a script;
--     - or it does its work at module level, outside every function and class: a call of
--       .backward(), .step(), .fit(), .train(), .eval(), .parse_args() or
--       .parse_known_args() (faster_rcnn's train.py trains at module level with no
--       __main__ block, nanoGPT's train.py and sample.py too), in a file no other project
--       file imports (tests aside): a module parsing the options on import is the
--       scripts' configuration, not a program;
--  * the program reaches torch (project.program_mentions): a tool script counting lines or
--    a data preparation script is no entry script;
--  * it does not build the project (project.build_script: setup.py, a torch.utils.ffi
--    build script);
--  * it is not under a hidden folder (.github/scripts run the repository's CI).
-- The code is read as text, without a syntax tree (a `__main__` test or a call inside a
-- string spanning lines, a comment or the body of a def or class does not count): finding
-- the entry scripts of a whole project costs no parse, and Python 2 files are read like the
-- others.

-- Whether a file is test code: under a tests folder, or named test_*.py, *_test.py or
-- conftest.py.
function project.test_file(p)
	for part in (dirname(p) .. "/"):gmatch("([^/]*)/") do
		if part == "tests" or part == "test" or part == "testing" then return true end
	end
	local base = p:match("[^/]*$")
	return base:match("^test_") ~= nil or base:match("_test%.py$") ~= nil or base == "conftest.py"
end

-- The Python files ctx offers the check (ctx.python_files()) that are the program's
-- code, not test code (project.test_file): what tuning advice is about, since a test never
-- runs in the training or inference the migration tunes.
function project.program_files(ctx)
	local out = {}
	for _i, p in ipairs(ctx.python_files()) do
		if not project.test_file(p) then out[#out + 1] = p end
	end
	return out
end

-- The files among paths (a list) that a project file other than test code imports (a
-- set). One scan in C finds the files naming one of their modules; only their imports are
-- then read.
local function imported_among(ctx, paths)
	local names, want = {}, {}
	for _i, p in ipairs(paths) do
		local name = p:match("([^/]*)%.py$")
		if name == "__init__" then name = dirname(p):match("[^/]*$") end
		names[name] = true
		want[p] = true
	end
	local out = {}
	if #paths == 0 then return out end
	for _i, f in ipairs(ctx.files("%.py$")) do
		local named = not project.test_file(f) and ctx.find_names(f, names)
		if named and #named > 0 then
			for _j, g in ipairs(imported_files(ctx, f).list) do
				if want[g] then out[g] = true end
			end
		end
	end
	return out
end

-- Words of a program that parses its command line.
local CLI_WORDS = { "argparse", "sys.argv", "parse_args", "fire.Fire", "click.", "hydra", "tyro.", "HfArgumentParser",
	"docopt", "absl", "LightningCLI", "jsonargparse", "OmegaConf.from_cli" }
local function parses_command_line(ctx, path)
	for _i, w in ipairs(CLI_WORDS) do
		if ctx.find(path, w) then return true end
	end
	return false
end

-- Calls that do a program's work, in the order a finding names them.
local WORK = { "backward", "step", "fit", "train", "eval", "parse_args", "parse_known_args" }
local function has_work(ctx, path)
	for _i, w in ipairs(WORK) do
		if ctx.find(path, "." .. w .. "(") then return true end
	end
	return false
end

-- Whether a line is a def, class or decorator line.
local function defines(line)
	local head = line:match("^[ \t]*([%w_@]+)")
	if not head then return false end
	return head == "def" or head == "class" or head:sub(1, 1) == "@"
		or (head == "async" and line:find("^[ \t]*async[ \t]+def[ \t]") ~= nil)
end

-- The index of the last element of a sorted list at or below b (0 when none).
local function below(list, b)
	local lo, hi, at = 1, #list, 0
	while lo <= hi do
		local mid = (lo + hi) // 2
		if list[mid] <= b then at, lo = mid, mid + 1 else hi = mid - 1 end
	end
	return at
end

-- A Python file as the entry-script rule reads it: its lines, the byte offset (0-based) at
-- which each starts, and the offsets of its triple quotes (a string spanning lines is
-- text, not code). The offsets come from ctx.find, in C: no pass over the text in Lua.
local function source(ctx, path)
	local lines = ctx.lines(path) or {}
	local eol = ctx.find(path, "\r\n") and 2 or 1
	local starts, at = {}, 0
	for i, l in ipairs(lines) do
		starts[i] = at
		at = at + #l + eol
	end
	local src = { lines = lines, starts = starts, quotes = {} }
	for _i, q in ipairs({ '"""', "'''" }) do
		local other = q:sub(1, 1) == '"' and "'" or '"'
		local list, from = {}, 0
		while true do
			local p = ctx.find(path, q, from)
			if not p then break end
			-- not the content of a one-line string ('"""', as code splitting docstrings has)
			local n = below(starts, p)
			local l, c = lines[n] or "", p - (starts[n] or 0) + 1
			if not (l:sub(c - 1, c - 1) == other and l:sub(c + 3, c + 3) == other) then list[#list + 1] = p end
			from = p + 3
		end
		src.quotes[#src.quotes + 1] = list
	end
	return src
end

-- Whether byte b is inside a string spanning lines: after an odd number of one kind of
-- triple quote (the quotes of the other kind inside such a string count too: rare enough).
local function in_string(src, b)
	for _i, list in ipairs(src.quotes) do
		if below(list, b - 1) % 2 == 1 then return true end
	end
	return false
end

-- Whether the code at byte b, on line n, runs at module level: outside the bodies of the
-- file's functions and classes, strings spanning lines and comments. Going back from line
-- n, each line less indented than the ones below it is a header around it (if, for,
-- with ...): a def or class among them holds it.
local function at_module_level(src, n, b)
	if in_string(src, b) then return false end
	local line = src.lines[n]
	if line:sub(1, b - src.starts[n]):find("#", 1, true) then return false end -- in a comment
	if defines(line) then return false end
	local indent = #line:match("^[ \t]*")
	for i = n - 1, 1, -1 do
		if indent == 0 then break end
		local l = src.lines[i]
		local ind = #l:match("^[ \t]*")
		-- a line opening with a closing bracket ends a call or signature spanning lines
		if ind < indent and l:find("^[ \t]*[^ \t#)%]}]") and not in_string(src, src.starts[i]) then
			if defines(l) then return false end
			indent = ind
		end
	end
	return true
end

-- The lines and offsets of each occurrence of a literal in a file: {n=, b=} in order.
local function occurrences(ctx, path, src, literal)
	local out, from = {}, 0
	while true do
		local b = ctx.find(path, literal, from)
		if not b then return out end
		out[#out + 1] = { n = below(src.starts, b), b = b }
		from = b + #literal
	end
end

-- The `if __name__ == "__main__":` line of a file, outside strings: {line=, col=, code=} or
-- nil.
local function main_block(ctx, path, src)
	for _i, o in ipairs(occurrences(ctx, path, src, "__main__")) do
		local line = src.lines[o.n] or ""
		if (line:find("^[ \t]*if[ \t]*%(?[ \t]*__name__[ \t]*==[ \t]*[\"']__main__[\"']")
			or line:find("^[ \t]*if[ \t]*%(?[ \t]*[\"']__main__[\"'][ \t]*==[ \t]*__name__"))
			and not in_string(src, o.b) then
			local c = #line:match("^[ \t]*") + 1
			return { line = o.n, col = c, code = (line:sub(c):gsub("%s+$", "")) }
		end
	end
	return nil
end

-- Whether the code at byte b is plainly inside a def or class: going back from its line
-- through the 4 KiB before it (read in C), each line less indented than the ones below it
-- is a header around it, and one of them defines. Most calls of a library are; reading
-- the whole file (source) is then not needed. False when it cannot tell.
local function inside_definition(ctx, path, b)
	local from = math.max(0, b - 4096)
	local lines = {}
	for l in (ctx.node_text(path, from, b) .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
	if from > 0 then table.remove(lines, 1) end -- a line cut by the window
	local last = lines[#lines]
	if not last then return false end
	local indent = #last:match("^[ \t]*")
	for i = #lines - 1, 1, -1 do
		if indent == 0 then return false end
		local l = lines[i]
		local ind = #l:match("^[ \t]*")
		if ind < indent and l:find("^[ \t]*[^ \t#)%]}\r]") then
			if defines(l) then return true end
			indent = ind
		end
	end
	return false
end

-- The first call of WORK (in WORK's order) the file makes at module level: {line=, col=,
-- code=} or nil. Only the calls are looked at: most files have none at module level.
local function module_level_work(ctx, path, src_of)
	for _i, w in ipairs(WORK) do
		local from = 0
		while true do
			local b = ctx.find(path, "." .. w .. "(", from)
			if not b then break end
			from = b + 1
			local src = not inside_definition(ctx, path, b) and src_of(ctx, path)
			local n = src and below(src.starts, b)
			if src and at_module_level(src, n, b) then
				local line = src.lines[n]
				local c = #line:match("^[ \t]*") + 1
				return { line = n, col = c, code = (line:sub(c):gsub("%s*#.*$", ""):gsub("%s+$", "")) }
			end
		end
	end
	return nil
end

-- The project's entry scripts (the rule above): path -> {why = "main" (its __main__ block,
-- at line/col, code), "module" (the call at module level showing it runs as a program, at
-- line/col, code) or "launched" (launch = its project.launched_scripts entry)}. Once per
-- run.
local entries_of
function project.entry_scripts(ctx)
	if entries_of then return entries_of end
	local launched = project.launched_scripts(ctx)
	local src_path, src -- the file last read by source()
	local function src_of(c, p)
		if src_path ~= p then src_path, src = p, source(c, p) end
		return src
	end
	-- what each file shows; whether another file imports it is asked of the files it
	-- decides, all at once
	local found, ask = {}, {}
	for _i, p in ipairs(ctx.files("%.py$")) do
		if not ("/" .. p):find("/%.") and not project.build_script(ctx, p) then
			local main = ctx.find(p, "__main__") and main_block(ctx, p, src_of(ctx, p))
			local work = not main and has_work(ctx, p) and module_level_work(ctx, p, src_of)
			local f = { path = p }
			if main then
				f.e = { why = "main", line = main.line, col = main.col, code = main.code }
				-- a module's self-test, unless it parses a command line or the project runs it
				f.ask = not launched[p] and not parses_command_line(ctx, p)
			elseif work then
				f.e = { why = "module", line = work.line, col = work.col, code = work.code }
				f.ask = not launched[p]
			end
			if launched[p] and not f.e then f.e = { why = "launched", launch = launched[p] } end
			if f.e then
				found[#found + 1] = f
				if f.ask then ask[#ask + 1] = p end
			end
		end
	end
	local imported = imported_among(ctx, ask)
	local out = {}
	for _i, f in ipairs(found) do
		local e = f.e
		-- a module another file imports: its __main__ block a self-test, or its options
		-- parsed on import
		if f.ask and imported[f.path] then e = nil end
		if e and project.program_mentions(ctx, f.path, "torch") then out[f.path] = e end
	end
	entries_of = out
	return out
end

return project
