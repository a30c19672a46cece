-- fallback: code that runs only on a torch without an API that every torch an active
-- torch_npu release pairs with has, so it never runs on the NPU host: the else of
-- `if hasattr(F, "scaled_dot_product_attention"):`, the body of `if not hasattr(...)`,
-- also through a name or attribute the file sets once from such a test
-- (`self.flash = hasattr(torch.nn.functional, 'scaled_dot_product_attention')`, then
-- `if self.flash: ... else: <fallback>`). The APIs and the releases that added them are
-- in data/torch_since.json; the torch releases in data/version_matrix.json.
--
--   local fallback = require("fallback")
--   local why = fallback.unreached(ctx, path, byte)
--
-- why is nil when the byte is in no such branch, else {test=(the condition's text),
-- api=(the dotted API), since=(its release), torch=(the oldest torch of an active
-- torch_npu release)}.

local py = require("py")
local ep = require("envprobe")

local fallback = {}

local HASATTR = [[
(call function: (identifier) @f (#eq? @f "hasattr")
  arguments: (argument_list . (_) @obj . (string) @name .)) @call
]]
local ASSIGNS = "(assignment left: (_) @lhs right: (_) @rhs) @a"
local IFS = [[
(if_statement condition: (_) @cond consequence: (block) @body alternative: (_)? @alt) @if
]]

-- The oldest torch an active torch_npu release pairs with ("2.1.0"), or nil.
local function oldest_active_torch(ctx)
	local low
	for _i, r in ipairs(ctx.data("version_matrix").entries) do
		local t = r.status == "active" and r.torch and tostring(r.torch)
		if t and (not low or ep.vcmp(t, low) < 0) then low = t end
	end
	return low
end

-- "module name" -> entry of torch_since.json for the APIs that torch has.
local function present_apis(ctx, torch)
	local out = {}
	for _i, e in ipairs(ctx.data("torch_since").entries) do
		if ep.vcmp(torch, e.since) >= 0 then out[e.module .. " " .. e.name] = e end
	end
	return out
end

-- The file's feature tests of present APIs: the text of each test -> its entry, for
-- the hasattr calls themselves and for a name or attribute assigned once, from one.
local function feature_tests(ctx, path, apis)
	local aliases = py.aliases(ctx, path) or {}
	local tests = {}
	for _i, m in ipairs(ctx.query(path, HASATTR) or {}) do
		local module = py.expand(aliases, py.dotted(m.obj.text) or m.obj.text)
		local e = apis[module .. " " .. (py.string_value(m.name.text) or "")]
		if e then tests[m.call.text] = e end
	end
	if next(tests) == nil then return tests end
	local assigned, count = {}, {}
	for _i, m in ipairs(ctx.query(path, ASSIGNS) or {}) do
		local lhs = m.lhs.text
		count[lhs] = (count[lhs] or 0) + 1
		if tests[m.rhs.text] then assigned[lhs] = tests[m.rhs.text] end
	end
	for name, e in pairs(assigned) do
		if count[name] == 1 then tests[name] = e end
	end
	return tests
end

-- Strips the parentheses around a condition's text.
local function bare(text)
	local inner = text:match("^%((.*)%)$")
	while inner do
		text = inner
		inner = text:match("^%((.*)%)$")
	end
	return text
end

-- The byte ranges of the file's branches that run only without an API of `apis` (those
-- the oldest active torch has), each {lo=, hi=, test=, entry=, torch=}.
local function unreached_ranges(ctx, path, torch, apis)
	local tests = feature_tests(ctx, path, apis)
	if next(tests) == nil then return {} end
	local out = {}
	for _i, m in ipairs(ctx.query(path, IFS) or {}) do
		local cond = bare(m.cond.text)
		local negated = cond:match("^not%s+(.+)$")
		local e = tests[negated and bare(negated) or cond]
		if e and negated then
			out[#out + 1] = { lo = m.body.start_byte, hi = m.body.end_byte, test = m.cond.text, entry = e, torch = torch }
		elseif e and m.alt then
			-- the elif and else clauses after the test: their text runs to the if's end
			out[#out + 1] = { lo = m.body.end_byte, hi = m["if"].end_byte, test = m.cond.text, entry = e, torch = torch }
		end
	end
	return out
end

local cache = setmetatable({}, { __mode = "k" })

function fallback.unreached(ctx, path, byte)
	-- per run: the oldest active torch and its APIs once, each file's ranges once
	local per = cache[ctx]
	if not per then
		local torch = oldest_active_torch(ctx)
		per = { torch = torch, apis = torch and present_apis(ctx, torch), files = {} }
		cache[ctx] = per
	end
	if not per.torch then return nil end
	local ranges = per.files[path]
	if not ranges then
		ranges = unreached_ranges(ctx, path, per.torch, per.apis)
		per.files[path] = ranges
	end
	for _i, r in ipairs(ranges) do
		if r.lo <= byte and byte < r.hi then
			return { test = r.test, api = r.entry.module .. "." .. r.entry.name, since = r.entry.since, torch = r.torch }
		end
	end
	return nil
end

return fallback
