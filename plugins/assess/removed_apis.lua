-- assess.removed_apis: imports of PyTorch modules a release removed (torch.utils.ffi in
-- 1.0, torch._six in 2.0).
--
-- Code written for an older torch may import a module that no longer exists: on the torch 2.x
-- that torch_npu releases pair with, the import fails before anything runs. Each import
-- (`from torch._six import inf`, `import torch._six`, `from torch import _six`) and each
-- use through torch (`torch._six.inf`) is reported with what the names it takes are now,
-- and what porting the code takes when the table says (a C extension built with
-- torch.utils.ffi must be rewritten for torch.utils.cpp_extension).

local ep = require("envprobe")
local py = require("py")

-- The entry of removed_apis.json whose module is full or holds it, or nil.
local function entry_of(entries, full)
	for _i, e in ipairs(entries) do
		if full == e.module or full:sub(1, #e.module + 1) == e.module .. "." then return e end
	end
	return nil
end

-- "`inf`: `math.inf`; `string_classes`: `(str, bytes)`" for the names taken from e (all of them
-- when names is empty).
local function replacements(e, names)
	local out, seen = {}, {}
	local function add(n)
		local r = e.replacements[n]
		if r and not seen[n] then
			seen[n] = true
			out[#out + 1] = _("`{name}`: {now}", { name = n, now = r })
		end
	end
	for _i, n in ipairs(names) do add(n) end
	if #out == 0 then
		local all = {}
		for n in pairs(e.replacements) do all[#all + 1] = n end
		table.sort(all)
		for _i, n in ipairs(all) do add(n) end
	end
	return table.concat(out, "; ")
end

-- "2.0.1", "2.12.0": the oldest and newest torch of the torch_npu releases
-- (version_matrix.json) from version on, or nil when there is none.
local function npu_torch_range(ctx, version)
	local low, high
	for _i, r in ipairs(ctx.data("version_matrix").entries) do
		local t = r.torch and tostring(r.torch)
		if t and ep.vcmp(t, version) >= 0 then
			if not low or ep.vcmp(t, low) < 0 then low = t end
			if not high or ep.vcmp(t, high) > 0 then high = t end
		end
	end
	return low, high
end

local function report(ctx, path, node, e, code, names)
	local low, high = npu_torch_range(ctx, e.removed_in)
	local fields = { code = code, module = e.module, version = e.removed_in, low = low, high = high }
	local suggestion = _("Take the names from where they are now ({now}) and drop the import of {module}.",
		{ now = replacements(e, names), module = e.module })
	if e.fix then
		suggestion = _("{fix} What the names are now: {now}.", { fix = _(e.fix), now = replacements(e, names) })
	end
	ctx.report{
		file = path, node = node, key = e.module .. ":" .. code, unit = e.module .. ":" .. path,
		message = low
			and _("`{code}`: the module {module} was removed in PyTorch {version}, so this fails with ModuleNotFoundError or AttributeError on torch {version} and later, the torch of every torch_npu release for torch {low} to {high}.", fields)
			or _("`{code}`: the module {module} was removed in PyTorch {version}, so this fails with ModuleNotFoundError or AttributeError on torch {version} and later.", fields),
		suggestion = suggestion,
		data = { source = e.source },
	}
end

return {
	id = "assess.removed_apis",
	phase = "assess",
	title = _("PyTorch modules a release removed"),
	severity = "error",
	category = "versions",
	description = _("Finds imports and uses of PyTorch modules a release removed (plugins/data/removed_apis.json: "
		.. "torch.utils.ffi, removed in PyTorch 1.0, and torch._six, removed in PyTorch 2.0), which fail on every "
		.. "later torch, the torch of current torch_npu releases among them, and says what each name is now and, "
		.. "for torch.utils.ffi, that its C extensions must be ported to torch.utils.cpp_extension."),
	triggers = function(data)
		local t = {}
		for _i, e in ipairs(data("removed_apis").entries) do t[#t + 1] = e.module:match("[^.]+$") end
		return t
	end,
	run = function(ctx)
		local entries = ctx.data("removed_apis").entries
		for _i, path in ipairs(ctx.python_files()) do
			local imports = py.imports(ctx, path) or {}
			local by_stmt, order = {}, {}
			for _j, r in ipairs(imports) do
				local e = entry_of(entries, r.full or r.module) or (r.module and entry_of(entries, r.module))
				if e then
					local key = r.node.start_byte
					if not by_stmt[key] then
						by_stmt[key] = { node = r.node, e = e, names = {} }
						order[#order + 1] = key
					end
					if r.name and r.module == e.module and r.name ~= "*" then
						table.insert(by_stmt[key].names, r.name)
					end
				end
			end
			for _j, key in ipairs(order) do
				local s = by_stmt[key]
				report(ctx, path, s.node, s.e, ctx.node_text(path, s.node.start_byte, s.node.end_byte), s.names)
			end
			-- uses through torch itself: torch._six.inf after `import torch`
			local aliases = py.aliases(ctx, path) or {}
			for _j, a in ipairs(py.attributes(ctx, path) or {}) do
				local full = py.expand(aliases, a.text)
				local e = full and entry_of(entries, full)
				if e and full ~= e.module then
					report(ctx, path, a.node, e, a.text, { full:sub(#e.module + 2):match("^[^.]+") })
				end
			end
		end
	end,
}
