-- assess.legacy_libraries: calls of the libraries beside torch whose 2017 form fails on
-- the releases installed with a modern torch.
--
-- A project of torch 0.3's time calls PyYAML and numpy the way they allowed then. On the
-- releases pip installs beside a current torch, the one torch_npu pairs with, two such calls
-- stop the program where they run:
--   * `yaml.load(stream)` / `yaml.load_all(stream)` without a Loader (a second positional
--     argument or Loader=): a TypeError since PyYAML 6.0;
--   * a pickled object read from a .npy file, `np.load(f).item()` or `np.load(f)[()]`
--     (a dict of weights saved with np.save), without allow_pickle=True: a ValueError
--     since numpy 1.16.3. Other np.load calls read arrays, which need no pickle.
-- The facts (release, error text, fix, source) are in plugins/data/legacy_libraries.json.

local py = require("py")
local words = require("words")

local CALLS = "(call function: (_) @f arguments: (argument_list) @args) @call"
local PICKLED = [[
(call function: (attribute object: (call function: (_) @f arguments: (argument_list) @args) attribute: (identifier) @m)
  (#eq? @m "item")) @use
(subscript value: (call function: (_) @f arguments: (argument_list) @args) subscript: (tuple) @t (#eq? @t "()")) @use
]]

-- The legacy_libraries.json entries by dotted name.
local function entries(ctx)
	local out = {}
	for _i, e in ipairs(ctx.data("legacy_libraries").entries) do out[e.name] = e end
	return out
end

local NO_ARGUMENTS = { n = 0, kw = {} }

-- The entry of the function a call's callee names (through the file's aliases), or nil.
local function entry_of(known, aliases, f)
	local d = py.dotted(f.text)
	return d and known[py.expand(aliases, d)] or nil
end

-- Reports the call at node with entry e's facts: says(args) gives the message from {code=,
-- name=, library=, since=, error=}, now is the call as it is written today.
local function report(ctx, path, e, node, now, says)
	ctx.report{
		file = path, node = node, severity = "error", unit = e.name .. ":" .. path,
		message = says({ code = words.clip(node.text:match("^[^\n]*"), 80), name = e.name, library = e.library,
			since = e.fails_since, error = e.error }),
		suggestion = _("{fix} Here: `{now}`.", { fix = _(e.fix), now = words.clip(now, 80) }),
		data = { source = e.source },
	}
end

-- The matches of query q in path whose callee @f names an entry of the given form and whose
-- arguments @args do not show what it needs (fine(args) false, nothing unpacked): {m=, e=}.
local function offending(ctx, path, q, form, env, fine)
	local out = {}
	for _i, m in ipairs(ctx.query(path, q) or {}) do
		local e = entry_of(env.known, env.aliases, m.f)
		local a = e and e.form == form and (env.lists[m.args.start_byte] or NO_ARGUMENTS)
		if a and not a.splat and not fine(a) then out[#out + 1] = { m = m, e = e } end
	end
	return out
end

-- Reports each yaml.load / yaml.load_all call without a Loader.
local function no_loader(ctx, path, env)
	for _i, o in ipairs(offending(ctx, path, CALLS, "no_loader", env, function(a) return a.n >= 2 or a.kw.Loader end)) do
		local safe = o.e.name:gsub("^yaml%.", "yaml.safe_")
		report(ctx, path, o.e, o.m.call, safe .. o.m.args.text, function(a)
			return _("`{code}` calls {name} without a Loader, which {library} {since} and later refuse: \"{error}\"", a)
		end)
	end
end

-- Reports each pickled object read with np.load without allow_pickle=True.
local function pickled(ctx, path, env)
	for _i, o in ipairs(offending(ctx, path, PICKLED, "pickled", env, function(a) return a.kw.allow_pickle end)) do
		local m = o.m
		local args = m.args.text:gsub("%)$", ", allow_pickle=True)")
		report(ctx, path, o.e, m.use, m.f.text .. args .. m.use.text:sub(#m.f.text + #m.args.text + 1), function(a)
			return _("`{code}` reads a pickled object from a .npy file without allow_pickle=True, which {library} {since} and later refuse: \"{error}\"", a)
		end)
	end
end

return {
	id = "assess.legacy_libraries",
	phase = "assess",
	title = _("Old PyYAML and numpy calls that fail on a modern stack"),
	severity = "error",
	category = "versions",
	description = _("Finds calls of the libraries beside torch whose old form fails on the releases installed "
		.. "with a modern torch (plugins/data/legacy_libraries.json): `yaml.load` and `yaml.load_all` without a "
		.. "Loader, a TypeError since PyYAML 6.0, and a pickled object read with `np.load(f).item()` or "
		.. "`np.load(f)[()]` without allow_pickle=True, a ValueError since numpy 1.16.3."),
	triggers = { "yaml", { "load", "item()" }, { "load", "[()]" } },
	run = function(ctx)
		local known = entries(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			local env = { known = known, aliases = py.aliases(ctx, path) or {}, lists = py.argument_lists(ctx, path) }
			if ctx.find(path, "yaml") then no_loader(ctx, path, env) end
			if ctx.find(path, "load") then pickled(ctx, path, env) end
		end
	end,
}
