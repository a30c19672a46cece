-- tune.attention_fp32: a hand-written attention's score×V matmul in float16.
--
-- 003 §3.5.1 (特定计算操作对计算精度的要求): matmuls may run in half precision, but in an
-- attention layer the product of the attention scores (the softmax's output) with V must
-- be computed in FP32 to stay stable, avoid overflow and keep the accumulated error small.
-- Autocast puts matmul on its 16-bit list and casts its inputs down even when they are
-- float32, so a hand-written `softmax(...) @ v` runs in 16 bits unless autocast is off
-- around it. The check reports each `@`, torch.matmul or torch.bmm whose left operand is
-- attention probabilities — a softmax (or diffusers' get_attention_scores) directly, or a
-- name assigned from one in the same function, passed on through dropout, masking or a
-- view, never through another product — outside a `with` that turns autocast off and a
-- function decorated to run in FP32, when that attention runs under half precision.
--
-- Which half precision applies to an attention. A repository may hold independent programs
-- (pytorch/examples: each folder its own), so one program's autocast says nothing about
-- another's attention:
--   * a site in a Python file — a float16/bfloat16 autocast region of a training file, an
--     autocast partial, a launch setting written in Python — applies to the programs that
--     run that file (project.program): the file and every project module it imports,
--     transitively; and, unless the file has a `__main__` block, the files importing it
--     (a Trainer module's loop runs the model its script passes in) and their imports;
--   * a launch setting on a shell command that runs a project script (`python train.py
--     --fp16`, continuation lines joined) applies to that script's programs;
--   * any other launch setting (a YAML or JSON config, a shell line running no script of
--     the project) applies to the whole project;
--   * an attention file that nothing runnable runs — neither it nor any file importing it,
--     transitively, has a training loop, a `__main__` block or is a test (a model a config
--     names by string) — may run under any site, so the project's best site applies.
-- Among the sites that apply, float16 comes before bfloat16, and an autocast region before
-- a launch setting (see RANK); the finding names the one chosen.

local py = require("py")
local train = require("train")
local project = require("project")

local SITES = [[
(binary_operator left: (_) @a operator: "@" right: (_) @b) @site
(call function: (attribute object: (identifier) @mod attribute: (identifier) @fn) arguments: (argument_list . (_) @a . (_) @b)) @site
]]
local FUNCS = "(function_definition body: (block) @body) @def"
local DECORATED = "(decorated_definition (decorator) @dec definition: (function_definition) @def)"
local WITHS = "(with_statement (with_clause) @clause body: (block) @body) @with"
local ASSIGN = "(assignment left: (identifier) @name right: (_) @rhs) @assign"

local MATMULS = { matmul = true, bmm = true }

-- Calls whose result is attention probabilities: a softmax, or diffusers' Attention
-- helper that computes the scores and their softmax (attention_processor.py).
local PRODUCERS = { "softmax", "get_attention_scores" }
-- Methods that pass a tensor on unchanged in value (a view or a copy of it).
local PASS_ON = { view = true, reshape = true, contiguous = true, to = true, type_as = true, float = true, half = true,
	transpose = true, permute = true, flatten = true }

-- Is the expression's outermost operation a producer call (`(q @ k.T).softmax(-1)`,
-- `F.softmax(x, dim=-1)`), not a product of one (`F.softmax(x, -1) @ w`)?
local function produces(text)
	for _i, p in ipairs(PRODUCERS) do
		if text:find("%f[%w_]" .. p .. "%s*%b()%s*$") then return true end
	end
	return false
end

-- The project's float16 and bfloat16 training: a float16 autocast region of a training
-- file, an autocast partial with float16 in its file, a launch setting (Lightning's
-- precision "16-mixed"/"bf16-mixed", Megatron's --fp16/--bf16, DeepSpeed's "fp16"/"bf16"
-- blocks). The project's tests do not count.
-- Each setting is a Lua pattern and the text it begins with.
local SETTINGS = {
	{ lit = "precision", pat = "^precision%s*=%s*[\"']?16", dtype = "float16" },
	{ lit = "precision", pat = "^precision%s*=%s*[\"']bf16", dtype = "bfloat16" },
	{ lit = "--fp16", pat = "^%-%-fp16%f[^%w%-]", dtype = "float16" },
	{ lit = "--bf16", pat = "^%-%-bf16%f[^%w%-]", dtype = "bfloat16" },
	{ lit = "\"fp16\"", pat = "^\"fp16\"%s*:%s*{%s*\"enabled\"%s*:%s*true", dtype = "float16" },
	{ lit = "\"bf16\"", pat = "^\"bf16\"%s*:%s*{%s*\"enabled\"%s*:%s*true", dtype = "bfloat16" },
}
-- Words one of the SETTINGS holds: a file with none of them is not read.
local SETTING_WORDS = { "precision", "fp16", "bf16" }
-- A test of the project: its autocast regions are not how the project trains.
local function is_test(path)
	return path:match("^tests?/") or path:match("/tests?/") or path:match("[^/]*$"):match("^test_") or path:match("_test%.py$")
end

-- An autocast made into a function (timm's `partial(torch.autocast, ..., dtype=amp_dtype)`)
-- in a file that chooses float16 for it: its line and the byte offset of `partial(`, or nil.
local function float16_partial(ctx, path)
	if not (ctx.find(path, "partial(torch.autocast") or ctx.find(path, "partial(autocast")) or not ctx.find(path, "torch.float16") then
		return nil
	end
	local at = 0
	for n, l in ipairs(ctx.lines(path) or {}) do
		local col = l:find("partial%(%s*[%w_.]*autocast")
		if col then return n, at + col - 1 end
		at = at + #l + 1
	end
end

-- Which half-precision site decides, best first: a float16 autocast region or partial of
-- a training script, a float16 launch setting, a float16 partial elsewhere, a bfloat16
-- region, a bfloat16 setting.
local RANK = { region16 = 1, setting16 = 2, partial16 = 3, region_bf16 = 4, setting_bf16 = 5 }

-- The launch settings of a file: {at= (byte offset), dtype=} for the first occurrence of
-- each setting, or {line=, dtype=} for every line holding one when every is true (a
-- shell script, whose commands each launch their own script).
local function settings_in(ctx, path, every)
	local out = {}
	if every then
		for n, l in ipairs(ctx.lines(path) or {}) do
			for _i, st in ipairs(SETTINGS) do
				local s = l:find(st.lit, 1, true)
				if s and l:find(st.pat, s) then out[#out + 1] = { line = n, dtype = st.dtype } end
			end
		end
		return out
	end
	-- located in C: many files name "precision" without setting it
	local size = #(ctx.read(path) or "")
	for _i, st in ipairs(SETTINGS) do
		local at = ctx.find(path, st.lit)
		while at and not ctx.node_text(path, at, math.min(size, at + 160)):find(st.pat) do
			at = ctx.find(path, st.lit, at + 1)
		end
		if at then out[#out + 1] = { at = at, dtype = st.dtype } end
	end
	table.sort(out, function(a, b) return a.at < b.at end)
	return out
end

-- The sites of the project's half-precision training: a list to fill with add(sites,
-- rank, dtype, path, line, runs), then sorted best first (sort_sites). A site is {dtype=,
-- path=, line= or at= (its byte offset, for where_of), runs= the Python file whose
-- programs it applies to, or nil for the whole project, off= the setting that keeps it
-- off by default (train.off_by_default), or nil}.
local function add(sites, rank, dtype, path, line, runs)
	sites[#sites + 1] = { rank = RANK[rank], n = #sites, dtype = dtype, path = path, line = line.line, at = line.at,
		runs = runs, off = line.off }
end

-- "path:line" of a site.
local function where_of(ctx, site)
	local line = site.line or select(2, ctx.node_text(site.path, 0, site.at):gsub("\n", "")) + 1
	return string.format("%s:%d", site.path, line)
end

local function sort_sites(sites)
	table.sort(sites, function(a, b) return a.rank < b.rank or (a.rank == b.rank and a.n < b.n) end)
end

-- The autocast partial and regions of one Python file (the trees are read here, in the
-- order the other checks read them).
local function python_sites(ctx, sites, path)
	if is_test(path) then return end
	local function trains() return ctx.find(path, "backward") and #train.steps(ctx, path) > 0 end
	local partial, at = float16_partial(ctx, path)
	-- a training script's partial decides; one of an inference script only if none does
	if partial then
		add(sites, (path:match("[^/]*$"):find("train") or trains()) and "region16" or "partial16", "float16", path,
			{ line = partial, off = train.off_by_default(ctx, path, { start_byte = at, end_byte = at + 1 }) }, path)
	end
	if ctx.find(path, "autocast") and trains() then
		local map = py.aliases(ctx, path) or {}
		local seen = {}
		for _i, r in ipairs(train.autocast(ctx, path, map)) do
			local rank = r.dtype == "float16" and "region16" or r.dtype == "bfloat16" and "region_bf16"
			if rank and not seen[rank] then
				seen[rank] = true
				add(sites, rank, r.dtype, path, { line = r.call.line, off = train.off_by_default(ctx, path, r.call) }, path)
			end
		end
	end
end

-- The launch settings of the project (read as text): a Python file's applies to its
-- programs, a shell command's to the script it launches, any other to the whole project.
local function setting_sites(ctx, sites)
	for _i, pattern in ipairs({ "%.py$", "%.sh$", "%.ya?ml$", "%.json$" }) do
		for _i, path in ipairs(ctx.files(pattern)) do
			local worded = false
			for _j, w in ipairs(SETTING_WORDS) do worded = worded or ctx.find(path, w) ~= nil end
			if worded and not is_test(path) then
				local shell = pattern == "%.sh$"
				local seen = {}
				for _j, hit in ipairs(settings_in(ctx, path, shell)) do
					local runs = pattern == "%.py$" and path or shell and project.launched_at(ctx, path, hit.line) or nil
					local key = hit.dtype .. "\0" .. (runs or "")
					if not seen[key] then
						seen[key] = true
						add(sites, hit.dtype == "float16" and "setting16" or "setting_bf16", hit.dtype, path, hit, runs)
					end
				end
			end
		end
	end
end

-- Does the Python file run as a program of its own: a training loop, a __main__ block, or
-- a test (its runner runs it)? Read as text: the files importing an attention are many.
local function runnable(ctx, path)
	return is_test(path) or ctx.find(path, "__main__") ~= nil or ctx.find(path, ".backward(") ~= nil
end

-- The half-precision site an attention in the file at path runs under, or nil: the best
-- site whose programs reach the file (project.program), or that applies to the whole
-- project. A file no program of the project runs (nothing that imports it, nor itself,
-- is runnable: a model a config names) may run under any, so the best site counts.
local function site_for(ctx, sites, path)
	for _i, s in ipairs(sites) do
		if not s.runs or project.program(ctx, s.runs)[path] then return s end
	end
	if project.runner(ctx, path, function(p) return runnable(ctx, p) end) then return nil end
	return sites[1]
end

-- The innermost node of list (field key) around byte b, or nil.
local function around(list, key, b)
	local best
	for _i, d in ipairs(list) do
		local n = d[key]
		if b >= n.start_byte and b < n.end_byte and (not best or n.start_byte >= best[key].start_byte) then best = d end
	end
	return best
end

-- Does autocast not apply at byte b: inside a `with` that turns it off, or in a function
-- decorated to run in FP32 (custom_fwd(cast_inputs=torch.float32))?
local function fp32_at(withs, decorated, b)
	for _i, w in ipairs(withs) do
		if b >= w.body.start_byte and b < w.body.end_byte and w.clause.text:find("enabled%s*=%s*False") then return true end
	end
	for _i, d in ipairs(decorated) do
		if b >= d.def.start_byte and b < d.def.end_byte and d.dec.text:find("custom_fwd") and d.dec.text:find("float32") then
			return true
		end
	end
	return false
end

-- The name an operand stands for: itself, or the name a view of it is taken from
-- (`attention_probs.view(...)`).
local function operand_name(operand)
	if operand.type == "identifier" then return operand.text end
	local base, method = operand.text:match("^([%a_][%w_]*)%.([%a_][%w_]*)%s*%(")
	if base and PASS_ON[method] then return base end
end

-- Is the operand attention probabilities? Followed back through the assignments of the
-- same function before the use: a name whose latest assignment calls a producer is; one
-- whose latest assignment is computed from the name itself without a product (dropout,
-- masked_fill, a view) is what that name was before.
local function from_softmax(operand, assigns, def, before)
	if operand.type == "call" and produces(operand.text) then return true end
	local name, at = operand_name(operand), before
	if not name then return false end
	for _hop = 1, 8 do
		local last
		for _i, a in ipairs(assigns) do
			if a.name.text == name and a.assign.end_byte <= at and a.assign.start_byte >= def.start_byte
				and (not last or a.assign.start_byte > last.assign.start_byte) then
				last = a
			end
		end
		if not last then return false end
		local rhs = last.rhs.text
		if produces(rhs) then return true end
		if rhs:find("@", 1, true) or rhs:find("matmul", 1, true) or rhs:find("bmm", 1, true) or rhs:find("einsum", 1, true)
			or not rhs:find("%f[%w_]" .. name .. "%f[^%w_]") then
			return false
		end
		at = last.assign.start_byte
	end
	return false
end

-- The score×V products of a file where autocast applies: {path=, site=, a=, b=} (nodes)
-- appended to out.
local function attention_products(ctx, path, out)
	local defs = ctx.query(path, FUNCS) or {}
	local assigns = ctx.query(path, ASSIGN) or {}
	local withs = ctx.query(path, WITHS) or {}
	local decorated = ctx.query(path, DECORATED) or {}
	for _i, m in ipairs(ctx.query(path, SITES) or {}) do
		local op = m.fn == nil or (MATMULS[m.fn.text] and m.mod and m.mod.text == "torch")
		local d = op and around(defs, "def", m.site.start_byte)
		if d and not fp32_at(withs, decorated, m.site.start_byte) and from_softmax(m.a, assigns, d.def, m.site.start_byte) then
			out[#out + 1] = { path = path, site = m.site, a = m.a, b = m.b }
		end
	end
end

return {
	id = "tune.attention_fp32",
	phase = "tune",
	title = _("Attention's score×V matmul in float16"),
	severity = "warning",
	category = "precision",
	description = _("In a project trained in half precision (autocast, Lightning's precision, Megatron's --fp16/--bf16, "
		.. "DeepSpeed's fp16/bf16), reports a hand-written attention whose softmax output is multiplied with V (`@`, "
		.. "torch.matmul, torch.bmm) where autocast is on: autocast runs matmul in 16 bits and casts float32 inputs "
		.. "down, while the migration guide (003 §3.5.1) computes the score×V product in FP32. A warning under "
		.. "float16, whose range overflows; information under bfloat16. A program's half precision counts only for "
		.. "the attention code it runs: its script and the project modules the script imports, so in a repository "
		.. "of independent programs one program's autocast is not blamed on another's attention."),
	triggers = { "softmax", "get_attention_scores" },
	run = function(ctx)
		local offered, sites, products = {}, {}, {}
		for _i, path in ipairs(project.program_files(ctx)) do offered[path] = true end
		-- one walk over the Python files in the order the other checks take, so that each
		-- tree is read while they read it: the training files' sites, the offered files'
		-- products
		for _i, path in ipairs(ctx.files("%.py$")) do
			python_sites(ctx, sites, path)
			if offered[path] and (ctx.find(path, "softmax") or ctx.find(path, "get_attention_scores")) then
				attention_products(ctx, path, products)
			end
		end
		if #products == 0 then return end
		setting_sites(ctx, sites)
		sort_sites(sites)
		if #sites == 0 then return end
		local site_of = {} -- path -> its site, or false
		for _i, p in ipairs(products) do
			if site_of[p.path] == nil then site_of[p.path] = site_for(ctx, sites, p.path) or false end
			local site = site_of[p.path]
			if site then
				local a = { site = p.site.text, where = where_of(ctx, site), a = p.a.text, b = p.b.text, off = site.off }
				ctx.report{
					file = p.path, node = p.site,
					severity = site.dtype == "float16" and "warning" or "info",
					message = site.dtype == "float16" and site.off
						and _("`{site}` multiplies the attention's softmax output with V in float16 when float16 autocast is turned on ({where}), which runs matmul in float16 even on float32 inputs; it is off by default ({off}), and the migration guide (003 §3.5.1) computes this product in FP32 for stability.", a)
						or site.dtype == "float16"
						and _("`{site}` multiplies the attention's softmax output with V in float16: the project trains under float16 autocast ({where}), which runs matmul in float16 even on float32 inputs, and the migration guide (003 §3.5.1) computes this product in FP32 for stability.", a)
						or _("`{site}` multiplies the attention's softmax output with V in bfloat16: the project trains in bfloat16 ({where}), and the migration guide (003 §3.5.1) computes this product in FP32 in half-precision training to keep the accumulated error small.", a),
					suggestion = _("Compute it with autocast off: `with torch.autocast(device_type=\"npu\", enabled=False): y = {a}.float() @ {b}.float()`, then cast y back to the input's dtype; or replace the hand-written attention with a fused one (F.scaled_dot_product_attention, torch_npu.npu_fusion_attention).", a),
				}
			end
		end
	end,
}
