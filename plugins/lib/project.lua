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

local project = {}

local VENDORED = { third_party = true, ["third-party"] = true, ["3rdparty"] = true, vendor = true,
	vendored = true, external = true, externals = true, submodules = true }

local function dirname(p) return p:match("^(.*)/[^/]*$") or "" end

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

local function module_file(all, mod, from)
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

function project.entry_scripts(ctx)
	local all, out = {}, {}
	for _i, p in ipairs(ctx.files("%.py$")) do all[p] = true end
	for _i, f in ipairs(ctx.files()) do
		local doc = false
		for _j, pat in ipairs(DOCS) do doc = doc or f:find(pat) ~= nil end
		local text = doc and ctx.read(f)
		if text and (text:find("python", 1, true) or text:find("torchrun", 1, true) or text:find("deepspeed", 1, true)
			or text:find("accelerate", 1, true)) then
			local dir = dirname(f)
			for line in text:gmatch("[^\n]+") do
				local words = {}
				for w in line:gmatch("[^%s`'\"$;&|()]+") do words[#words + 1] = w end
				local script, mod = launched(words)
				if script then
					local p = all[script] and script or (dir ~= "" and all[dir .. "/" .. script] and dir .. "/" .. script)
					if p then out[p] = true end
				elseif mod then
					local p = module_file(all, mod, "")
					if p then out[p] = true end
				end
			end
		end
		local base = f:match("[^/]*$")
		if base == "setup.py" or base == "setup.cfg" or base == "pyproject.toml" then
			for line in (ctx.read(f) or ""):gmatch("[^\n]+") do
				for mod in line:gmatch("=[%s\"']*([%a_][%w_.]*):[%a_]") do
					local p = module_file(all, mod, dirname(f))
					if p then out[p] = true end
				end
			end
		end
	end
	return out
end

return project
