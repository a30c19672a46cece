-- assess.cuda_helpers: calls of the project's own CUDA-dependent helpers, across files.
--
-- A helper such as `select_device()` in a utility module, or a wrapper whose body calls
-- one, carries CUDA into every caller without `cuda` appearing at the call site. The
-- project index (plugins/lib/pyindex.lua) marks the top-level functions that depend on
-- CUDA, directly or through the project functions they call; each call from another file
-- is reported where it is, naming the helper and the line inside it, and the helper once.

local pyindex = require("pyindex")

-- The helper at the end of t's chain of calls (t itself when it uses CUDA directly).
local function chain_end(t)
	local seen = {}
	while t.via and not seen[t.via] do
		seen[t] = true
		t = t.via
	end
	return t
end

-- The helper's CUDA sites as ctx.report's `follows`: the finding is what they are
-- (automatic when adapt rewrites each, settled once each is fixed); nil past the limit.
local function follows(t)
	if #t.roots == 0 or #t.roots > 256 then return nil end
	local list = {}
	for i, s in ipairs(t.roots) do list[i] = { file = s.path, node = s.node } end
	return list
end

return {
	id = "assess.cuda_helpers",
	phase = "assess",
	title = _("Calls of the project's own CUDA-dependent helpers, across files"),
	severity = "warning",
	category = "device",
	description = _("Builds an index of the project's top-level functions, follows imports and re-exports, "
		.. "and marks the functions that depend on CUDA, directly or through the project functions they "
		.. "call. A call of such a helper from another file is reported at the call site, naming the helper "
		.. "and the line inside it that needs CUDA; the helper itself is reported once, with its callers. "
		.. "Migrating the helper migrates every caller."),
	triggers = { "cuda" },
	run = function(ctx)
		local ix = pyindex.build(ctx, ctx.python_files())
		local callers = {}
		for _i, c in ipairs(ix.calls) do
			if c.path ~= c.target.path then
				local t = c.target
				local r = chain_end(t)
				local a = { call = c.node.text, helper = t.name, file = t.path,
					line = t.why.line, text = t.why.text, root = r.name, root_file = r.path, root_line = r.why.line }
				ctx.report{
					file = c.path, node = c.node,
					message = t.via
						and _("`{call}` calls the project helper `{helper}` ({file}), which depends on CUDA through its call `{text}` on line {line}.", a)
						or _("`{call}` calls the project helper `{helper}` ({file}), which depends on CUDA: `{text}` on line {line}.", a),
					suggestion = t.via
						and _("Migrate `{root}` in {root_file} (the finding at line {root_line}), which `{helper}` calls; this call then needs no change of its own.", a)
						or _("Migrate `{helper}` in {file} (the finding at line {line}); this call then needs no change of its own.", a),
					key = t.key,
					data = { helper = t.key },
					-- the work is the helper's: its calls count once
					unit = "helper:" .. t.key,
					follows = follows(t),
				}
				callers[t.key] = callers[t.key] or {}
				local list = callers[t.key]
				list[#list + 1] = c.path .. ":" .. c.node.line
			end
		end
		for _i, t in ipairs(ix.dependent) do
			local list = callers[t.key]
			if list then
				local shown = {}
				for k = 1, math.min(#list, 6) do shown[k] = list[k] end
				local a = { helper = t.name, text = t.why.text, line = t.why.line, n = #list,
					places = table.concat(shown, ", ") .. (#list > 6 and ", …" or "") }
				ctx.report{
					file = t.path, node = t.node, severity = "info",
					message = #list == 1
						and _("`{helper}` depends on CUDA (`{text}` on line {line}) and is called from another file: {places}.", a)
						or _("`{helper}` depends on CUDA (`{text}` on line {line}) and is called from {n} places in other files: {places}.", a),
					suggestion = _("Migrating this helper migrates its callers: make it choose 'npu' (for example from torch.npu.is_available()) and keep its callers as they are."),
					key = "helper",
					follows = follows(t),
				}
			end
		end
	end,
}
