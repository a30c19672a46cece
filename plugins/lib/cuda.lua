-- cuda: detection of the CUDA-specific constructs that have a mechanical NPU rewrite.
--
--   local cuda = require("cuda")
--   for _i, site in ipairs(cuda.cuda_calls(ctx, path)) do refs.report(ctx, site, mode) end
--
-- Each rule is written once here and used twice: the assess checks survey the sites (and
-- drop the edits), the adapt checks report the same sites with their edits. A detector
-- returns a list of sites in source order: finding tables ready for ctx.report, with
-- `edits` only where the rewrite is certain to be right. A site with `only = "survey"` is
-- for the assess survey alone, one with `only = "fix"` for adapt alone (refs.report
-- honours it). Comments, docstrings and messages are never edited: the detectors work on
-- the syntax tree and target strings only where the code uses them as devices, backends
-- or environment keys.

local py = require("py")
local refs = require("refs")
local project = require("project")

local cuda = {}

-- Trigger literals for the AMP rules: every way code can name torch.cuda.amp, torch.amp,
-- autocast, GradScaler, apex or amp_C contains one of them (plain "amp" would wake the
-- check for every "sample" and "clamp").
cuda.AMP_TRIGGERS = { ".amp", "import amp", ", amp", "(amp", "amp_C", "autocast", "GradScaler", "apex" }

-- The engagement runs automatic migration (transfer_to_npu) instead of rewrites.
function cuda.auto(ctx)
	return ctx.config("strategy") == "auto"
end

local function by_start(a, b)
	local x = a.node and a.node.start_byte or a.start or 0
	local y = b.node and b.node.start_byte or b.start or 0
	return x < y
end

local function last_name(text)
	return text:match("([%a_][%w_]*)%s*$") or ""
end

-- Where a rewrite would break working code (see "Code that must stay as it is" at the end
-- of this file): scene(ctx, path, parts...) describes the file, settle(ctx, path, sites)
-- drops or disarms the sites that fall in those places. Every detector returns settled
-- sites.
local scene, settle

---------------------------------------------------------------------------------------
-- .cuda(...) calls

local CUDA_CALL = [[
(call function: (attribute object: (_) @obj attribute: (identifier) @m (#eq? @m "cuda")) arguments: (argument_list) @args) @call
]]

-- The first method named cuda the project defines ("path:line"), or nil: a class of the
-- client's own with a cuda() method (a diffusers community pipeline; a Module overriding
-- it). A call x.cuda() may be that method, which `.npu()` (torch_npu's, for tensors and
-- Modules only) does not replace: ferry then leaves such calls to a person. Once per run.
local own_cuda_of = setmetatable({}, { __mode = "k" })
local function own_cuda_method(ctx)
	local known = own_cuda_of[ctx]
	if known == nil then
		known = false
		for _i, p in ipairs(ctx.files("%.py$")) do
			if ctx.find(p, "def cuda(") then
				for _j, m in ipairs(ctx.query(p, "(class_definition body: (block (function_definition name: (identifier) @n (#eq? @n \"cuda\"))))") or {}) do
					known = p .. ":" .. m.n.line
					break
				end
				if known then break end
			end
		end
		own_cuda_of[ctx] = known
	end
	return known or nil
end

-- x.cuda(...) -> x.npu(...), arguments kept (positional device, non_blocking=, device=).
function cuda.cuda_calls(ctx, path)
	local out = {}
	local own
	for _i, m in ipairs(ctx.query(path, CUDA_CALL) or {}) do
		if m.obj.text ~= "torch" then
			own = own or own_cuda_method(ctx)
			local site = {
				file = path, node = m.call,
				message = _("`{obj}.cuda()` moves this object to an NVIDIA GPU.", { obj = m.obj.text }),
				suggestion = _("Call `.npu()` instead (after `import torch_npu`), or better `.to(device)` with one device variable set to 'npu'."),
				edits = { py.replace(m.m, "npu") },
			}
			-- a tensor torch builds (torch.zeros(2).cuda()) is no object of the project's
			if own and not m.obj.text:match("^torch%.[%w_.]+%b()$") then
				site.edits = nil
				site.fix_message = _("`{obj}.cuda()` may call the project's own cuda() method ({where}), which `.npu()` does not replace: torch_npu adds `.npu()` to tensors and Modules only.",
					{ obj = m.obj.text, where = own })
				site.fix_suggestion = _("Port that cuda() method to the NPU (or give it a device argument) and call it here; where the object is a tensor or a Module, write `.npu()`.")
			end
			out[#out + 1] = site
		end
	end
	table.sort(out, by_start)
	return settle(ctx, path, out)
end

-- In a package others import, the import of torch_npu is guarded (the package still imports
-- where torch_npu is not installed), so torch.npu may not exist where it runs: its CUDA
-- availability test becomes one that answers no there, as CUDA's did on a machine without
-- a GPU, instead of raising AttributeError (whisper.load_model on a CPU host).
local function guarded_package(ctx, path)
	if cuda.auto(ctx) then return false end
	local lib = cuda.library(ctx)
	return lib ~= nil and lib.of(path) ~= nil
end

local function cuda_string(inner)
	return inner == "cuda" or inner:match("^cuda:%d+$") ~= nil
end

---------------------------------------------------------------------------------------
-- device strings

-- Strings that name the CUDA device: 'cuda', 'cuda:0', 'cuda:%d', 'cuda:%s', 'cuda:{}',
-- f'cuda:{rank}', and 'cuda:' (followed by + str(i)).
function cuda.device_string(inner)
	return inner == "cuda" or inner == "cuda:" or inner:match("^cuda:%d+$") ~= nil or inner == "cuda:%d"
		or inner == "cuda:%s" or inner:match("^cuda:{[^{}]*}$") ~= nil
end

-- Whether an expression asks whether something is CUDA (`x.is_cuda`, `dev.type == "cuda"`,
-- `torch.cuda.is_available()`), not merely names it (`x.cuda()`, `device="cuda"`).
local function is_cuda_test(text)
	return text:find("is_cuda", 1, true) ~= nil or text:find("cuda%s*%.%s*is_available") ~= nil
		or text:find("[=!]=%s*[\"']cuda") ~= nil or text:find("[\"']cuda[\"']%s*[=!]=") ~= nil
end

local AMP_FUNCS = { autocast = true, GradScaler = true }
-- Names the file assigns an AMP function to, alone or as a branch of a choice
-- (Stable Diffusion's `precision_scope = autocast if opt.precision == "autocast" else
-- nullcontext`): a call of them takes the device type like autocast itself.
local AMP_ALIASES = [[
(assignment left: (identifier) @name right: [(identifier) (attribute) (conditional_expression)] @v
  (#match? @v "(autocast|GradScaler)"))
]]
local amp_alias_of = { path = nil, names = nil }
local function amp_aliases(ctx, path)
	if amp_alias_of.path ~= path then
		local names = {}
		for _i, m in ipairs(ctx.query(path, AMP_ALIASES) or {}) do
			local v = m.v.text
			local heads = { v }
			if m.v.type == "conditional_expression" then
				heads = { v:match("^([%w_.]+)%s+if%s"), v:match("%selse%s+([%w_.]+)%s*$") }
			end
			for _i, h in pairs(heads) do
				if AMP_FUNCS[last_name(h)] then names[m.name.text] = true end
			end
		end
		amp_alias_of.path, amp_alias_of.names = path, names
	end
	return amp_alias_of.names
end

-- Whether a call's function is an AMP function (autocast, GradScaler, or a name the file
-- assigns one to).
local function amp_func(ctx, path, f)
	local fname = last_name(f.text)
	if AMP_FUNCS[fname] then return fname end
	if f.type == "identifier" and amp_aliases(ctx, path)[fname] then return fname end
	return nil
end

local DEVICE_FUNCS = {
	["torch.device"] = true, ["torch.cuda.device"] = true, ["torch.npu.device"] = true,
	["torch.cuda.set_device"] = true, ["torch.npu.set_device"] = true,
	["torch.set_default_device"] = true,
}
local DEVICE_METHODS = { to = true, to_empty = true }
local DEVICE_KEYWORDS = { device = true, map_location = true }

local DEVICE_CTX = [[
(call function: (_) @f arguments: (argument_list . (_) @v)) @call
(call function: (_) @kf arguments: (argument_list (keyword_argument name: (identifier) @k value: (_) @v)))
(call function: (attribute attribute: (identifier) @aa (#eq? @aa "add_argument"))
  arguments: (argument_list . (string) @opt (keyword_argument name: (identifier) @dk (#eq? @dk "default") value: (_) @v)))
(call function: (attribute attribute: (identifier) @aa (#eq? @aa "add_argument"))
  arguments: (argument_list . (string) @opt (keyword_argument name: (identifier) @dk (#eq? @dk "choices")
    value: [(list (string) @v) (tuple (string) @v) (set (string) @v)])))
(assignment left: (_) @lhs right: (_) @v)
(default_parameter name: (identifier) @lhs value: (_) @v)
(typed_default_parameter name: (identifier) @lhs value: (_) @v)
(comparison_operator (string) @cs)
(comparison_operator [(tuple (string) @cs) (list (string) @cs) (set (string) @cs)])
(call function: (attribute attribute: (identifier) @sw (#eq? @sw "startswith")) arguments: (argument_list . (string) @cs .))
(call function: (identifier) @ga (#eq? @ga "getattr")
  arguments: (argument_list . (_) . (string) @gattr . (_) @v .))
]]
-- Expressions that build a device from a string: 'cuda:%d' % i, 'cuda:{}'.format(i),
-- 'cuda:' + str(i), 'cuda' if ok else 'cpu', either built inside a choice (detectron2's
-- `"cuda:{}".format(gpuid) if num_gpus > 0 else "cpu"`), and the lists a CUDA test chooses
-- (detectron2's `["cpu"] + (["cuda"] if torch.cuda.is_available() else [])`).
local HEADS = [[
(binary_operator left: (string) @s) @e
(call function: (attribute object: (string) @s attribute: (identifier) @fm (#eq? @fm "format"))) @e
(conditional_expression (call function: (attribute object: (string) @s attribute: (identifier) @fm (#eq? @fm "format")))) @e
(conditional_expression (binary_operator left: (string) @s)) @e
(conditional_expression (string) @s) @e
(conditional_expression [(list (string) @s) (tuple (string) @s)]) @e
(conditional_expression (binary_operator [(list (string) @s) (tuple (string) @s)])) @e
]]

local function device_name(n)
	n = n:lower()
	return n == "device" or n == "dev" or n:match("_device$") ~= nil or n:match("^device_") ~= nil
end

-- Where a string is a component of a file system path, not a device: an argument of a
-- path join or constructor (os.path.join under any alias, as faster_rcnn's
-- `pjoin(os.sep, 'usr', 'local', 'cuda', 'bin')`; pathlib's Path, PurePath ...;
-- p.joinpath()), an operand of `/` (str has no `/`: the other side is a Path), an item of
-- a list or tuple joined by the path separator (`os.sep.join([...])`), and the value of a
-- variable named for a path (CUDA_HOME, cuda_root) read from or stored in the environment
-- or assigned. A 'cuda' there names the CUDA toolkit's folder: it is neither reported nor
-- rewritten, and pyindex does not count it as a CUDA dependence.
local PATH_FUNCS = { ["os.path.join"] = true, ["posixpath.join"] = true, ["ntpath.join"] = true,
	["pathlib.Path"] = true, ["pathlib.PurePath"] = true, ["pathlib.PosixPath"] = true,
	["pathlib.PurePosixPath"] = true, ["pathlib.WindowsPath"] = true, ["pathlib.PureWindowsPath"] = true }
local PATH_SEPS = { ["os.sep"] = true, ["os.path.sep"] = true, ["os.pathsep"] = true, ["os.path.pathsep"] = true }
local PATH_PARTS = [[
(call function: (_) @pf arguments: (argument_list (string) @part))
(binary_operator left: (string) @part operator: "/")
(binary_operator operator: "/" right: (string) @part)
(call function: (attribute object: (_) @sep attribute: (identifier) @j (#eq? @j "join"))
  arguments: (argument_list . [(list (string) @part) (tuple (string) @part)] .))
(call function: (attribute attribute: (identifier) @get (#match? @get "^(get|getenv|setdefault)$"))
  arguments: (argument_list . (string) @key . (string) @part .))
(assignment left: (_) @lhs right: (string) @part)
]]

-- Whether a name (a variable, attribute or environment key) says it holds a path.
local function path_name(n)
	n = n:lower()
	return not device_name(n) and (n:match("home$") or n:match("path$") or n:match("root$") or n:match("dir$")
		or n:match("prefix$")) ~= nil
end

-- The strings of the file that are path components (start byte -> true), for the device
-- strings here and pyindex's CUDA sites: map is the file's import aliases.
function cuda.path_strings(ctx, path, map)
	local out = {}
	for _i, m in ipairs(ctx.query(path, PATH_PARTS) or {}) do
		local part
		if m.pf then
			local d = py.dotted(m.pf.text)
			part = (d and PATH_FUNCS[py.expand(map, d)]) or (m.pf.type == "attribute" and last_name(m.pf.text) == "joinpath")
		elseif m.sep then
			local d = py.dotted(m.sep.text)
			local v = py.string_value(m.sep.text)
			part = (d and PATH_SEPS[py.expand(map, d)]) or v == "/" or v == "\\\\"
		elseif m.key then
			part = path_name(refs.string_inner(m.key))
		elseif m.lhs then
			local key = m.lhs.text:match("%[%s*[rRuU]?[\"']([%w_]+)[\"']%s*%]$")
			part = path_name(key or last_name(m.lhs.text))
		else
			part = true
		end
		if part then out[m.part.start_byte] = true end
	end
	return out
end

-- Start bytes of the strings the code uses as devices (certain), and of the strings
-- other rules own (comparisons, the device argument of autocast/GradScaler).
local function device_uses(ctx, path, map)
	local heads = {}
	local certain, skip, used, assigns, built = {}, {}, {}, {}, {}
	for _i, m in ipairs(ctx.query(path, HEADS) or {}) do
		local k = m.e.start_byte .. ":" .. m.e.end_byte
		heads[k] = heads[k] or {}
		table.insert(heads[k], m.s)
		-- 'cuda' if torch.cuda.is_available() else 'cpu' picks a device wherever it goes: the
		-- string moves with the test, which the API rewrite changes anyway
		if m.e.type == "conditional_expression" and is_cuda_test(m.e.text) then certain[m.s.start_byte] = true end
	end
	local function mark(v)
		if v.type == "string" then
			certain[v.start_byte] = true
		elseif v.type == "identifier" or v.type == "attribute" then
			used[v.text] = true
		end
		for _i, s in ipairs(heads[v.start_byte .. ":" .. v.end_byte] or {}) do certain[s.start_byte] = true end
	end
	for _i, m in ipairs(ctx.query(path, DEVICE_CTX) or {}) do
		if m.cs then
			skip[m.cs.start_byte] = true
		elseif m.call then
			local d = py.dotted(m.f.text)
			local name = d and py.expand(map, d)
			local fname = last_name(m.f.text)
			if amp_func(ctx, path, m.f) then
				if m.v.type == "string" then skip[m.v.start_byte] = true end
			elseif (name and DEVICE_FUNCS[name]) or (m.f.type == "attribute" and DEVICE_METHODS[fname]) then
				mark(m.v)
				if name == "torch.device" and m.v.type == "string" then
					built[m.v.start_byte] = m.f.text:match("^(.-)%s*%.%s*device$")
				end
			end
		elseif m.kf then
			local fname = last_name(m.kf.text)
			if AMP_FUNCS[fname] and (m.k.text == "device_type" or m.k.text == "device") then
				if m.v.type == "string" then skip[m.v.start_byte] = true end
			elseif DEVICE_KEYWORDS[m.k.text] then
				mark(m.v)
			end
		elseif m.opt then
			if refs.string_inner(m.opt):lower():find("device", 1, true) then mark(m.v) end
		elseif m.ga then
			-- getattr(model, "device", "cuda"): the default of a device attribute
			if device_name(refs.string_inner(m.gattr)) then mark(m.v) end
		elseif m.lhs then
			assigns[#assigns + 1] = m
		end
	end
	for b in pairs(cuda.path_strings(ctx, path, map)) do skip[b] = true end
	for _i, a in ipairs(assigns) do
		if skip[a.v.start_byte] then
			-- a path stored under a path's name is not a device, whatever uses the name
		elseif (a.lhs.type == "identifier" or a.lhs.type == "attribute")
			and (used[a.lhs.text] or device_name(last_name(a.lhs.text))) then
			mark(a.v)
		elseif a.lhs.type == "subscript" then
			-- kwargs["device_type"] = "cuda": a device stored under a device key
			local key = a.lhs.text:match("%[%s*[rRuU]?[\"']([%w_]+)[\"']%s*%]$")
			if key and device_name(key) then mark(a.v) end
		end
	end
	return certain, skip, built
end

-- Whether the code at byte b runs when the module is imported: outside every function
-- and lambda body (a default argument's value is built when its def runs).
local BODIES = "[(function_definition body: (block) @body) (lambda body: (_) @body)]"
local function on_import(ctx, path, b)
	for _i, m in ipairs(ctx.query(path, BODIES) or {}) do
		if b >= m.body.start_byte and b < m.body.end_byte then return false end
	end
	return true
end

-- Device type names, as keys of tables and items of lists of devices ("default" is the
-- usual fallback key of a table).
local DEVICE_KEYS = { cpu = true, cuda = true, npu = true, mps = true, xpu = true, hpu = true, mlu = true,
	neuron = true, xla = true, tpu = true, meta = true, ipu = true, musa = true, sdaa = true, default = true }

-- Lists, tuples and sets of two or more device type names that name 'cuda' and not 'npu'
-- (["cuda", "xpu", "hpu"]): a table of the devices some feature supports, not a device the
-- code picks. Start byte of each such 'cuda' string -> the collection node. The choices=
-- of an option are left to the option's rule (they move with its default).
local DEVICE_LISTS = [[
([(list (string) @s) (tuple (string) @s) (set (string) @s)] @coll (#match? @s "^[rRuU]?(\"|')cuda(\"|')$"))
]]
local function device_lists(ctx, path)
	local out = {}
	for _i, m in ipairs(ctx.query(path, DEVICE_LISTS) or {}) do
		local inner = m.coll.text:sub(2, -2)
		local n, all, npu = 0, true, false
		for item in (inner .. ","):gmatch("([^,]*),") do
			local name = item:match("^%s*[rRuU]?[\"']([%w_]+)[\"']%s*$")
			if name and DEVICE_KEYS[name] then
				n = n + 1
				npu = npu or name == "npu"
			elseif item:match("%S") then
				all = false
			end
		end
		local before = ctx.node_text(path, math.max(0, m.coll.start_byte - 41), m.coll.start_byte)
		if all and n >= 2 and not npu and not before:match("choices%s*=%s*$") then
			out[m.s.start_byte] = m.coll
		end
	end
	return out
end

-- Device strings: {node=string, edits only where the string is used as a device: the
-- argument of torch.device(), .to(), set_device(), set_default_device(), device=, map_location=, the default and
-- the choices of a --device option (a default of 'npu' outside choices=["cuda", "cpu"]
-- makes `--device npu` an invalid choice), or the value assigned to a variable that is
-- used as one}.
function cuda.device_strings(ctx, path, map)
	local out = {}
	local certain, skip, built -- how the file uses its strings: read when a device string is found
	local tables = scene(ctx, path, "tables").tables
	local lists
	for _i, s in ipairs(refs.strings(ctx, path)) do
		local inner, at = refs.string_inner(s.node)
		local candidate = not tables[s.node.start_byte] and cuda.device_string(inner)
		if candidate and not certain then certain, skip, built = device_uses(ctx, path, map) end
		-- the lists, found once per file at its first plain "cuda" (whatever device
		-- string came before it)
		if candidate and inner == "cuda" and not lists then lists = device_lists(ctx, path) end
		local list = candidate and lists and lists[s.node.start_byte]
		if tables[s.node.start_byte] then
			out[#out + 1] = tables[s.node.start_byte]
		elseif list and not skip[s.node.start_byte] then
			-- adding 'npu' switches on for the NPU whatever the list allows (CUDA graphs,
			-- capturable optimizers): a person decides, nothing is edited
			local items = list.text:gsub("%s+", " ")
			out[#out + 1] = {
				file = path, node = s.node,
				message = _("{list} lists device types and names {text} but not 'npu': code that checks a device against it treats the NPU as unsupported.",
					{ list = items, text = s.node.text }),
				suggestion = _("Find out what the list allows (such lists often gate a feature like CUDA graphs or a capturable optimizer); if the NPU supports it, add 'npu' beside {text}, which stays for GPUs.",
					{ text = s.node.text }),
				fix_message = _("ferry does not add 'npu' to a list of supported device types: whether the NPU supports what it allows is for a person to check."),
			}
		elseif candidate and not skip[s.node.start_byte] then
			local site = {
				file = path, node = s.node,
				message = _("The device string {text} names an NVIDIA GPU.", { text = s.node.text }),
				suggestion = _("Write 'npu' instead of 'cuda' (e.g. 'npu:0'); torch_npu registers the 'npu' device type."),
			}
			local head = certain[s.node.start_byte] and built[s.node.start_byte]
			if head and cuda_string(inner) and guarded_package(ctx, path) and on_import(ctx, path, s.node.start_byte) then
				-- torch.device('npu') raises where torch_npu is not imported: in a package
				-- others import, one built on import (a default argument) falls back to CUDA
				local q = s.node.text:match("^[%a]*(['\"])")
				site.edits = { refs.edit(s.node.start_byte, #s.node.text, q .. "npu" .. inner:sub(5) .. q
					.. " if hasattr(" .. head .. ", " .. q .. "npu" .. q .. ") else " .. s.node.text) }
			elseif certain[s.node.start_byte] then
				site.edits = { refs.edit(at, 4, "npu") }
			else
				site.fix_message = _("The string {text} looks like a CUDA device, but ferry cannot tell that the code uses it as one.",
					{ text = s.node.text })
				site.fix_suggestion = _("If it names the device, write 'npu' instead of 'cuda'; if it is text for people, leave it.")
			end
			out[#out + 1] = site
		end
	end
	return settle(ctx, path, out)
end

---------------------------------------------------------------------------------------
-- branches on the device type

local BRANCHES = [[
(comparison_operator (string) @s) @cmp
(comparison_operator [(tuple (string) @s) (list (string) @s) (set (string) @s)] @coll) @cmp
(call function: (attribute object: (_) @sobj attribute: (identifier) @sw (#eq? @sw "startswith"))
  arguments: (argument_list . (string) @s .)) @cmp
(attribute object: (_) @obj attribute: (identifier) @a (#eq? @a "is_cuda")) @attr
(assignment left: (attribute object: (_) @setobj attribute: (identifier) @set (#eq? @set "is_cuda")))
(class_definition body: (block (expression_statement (assignment left: (identifier) @cls (#eq? @cls "is_cuda")))))
(class_definition body: (block (function_definition name: (identifier) @cls (#eq? @cls "is_cuda"))))
(class_definition body: (block (decorated_definition definition: (function_definition name: (identifier) @cls (#eq? @cls "is_cuda")))))
]]

-- A comparison with 'cuda' inside a boolean expression, as the condition of a conditional
-- expression, or as the value of a keyword argument, dict entry or assignment: with a
-- feature named beside it, the comparison gates that feature rather than choosing a device
-- (nanoGPT's `use_fused = fused_available and device_type == 'cuda'`, litgpt's
-- `{"fused": fabric.device.type == "cuda"}`).
local GATES = [[
(boolean_operator (comparison_operator [(string) (tuple) (list) (set)]) @c) @gate
(boolean_operator (parenthesized_expression (comparison_operator [(string) (tuple) (list) (set)]) @c)) @gate
(conditional_expression (_) . (comparison_operator [(string) (tuple) (list) (set)]) @c . (_)) @gate
(keyword_argument value: (comparison_operator [(string) (tuple) (list) (set)]) @c) @gate
(pair value: (comparison_operator [(string) (tuple) (list) (set)]) @c) @gate
(assignment right: (comparison_operator [(string) (tuple) (list) (set)]) @c) @gate
]]
-- CUDA features whose support on the NPU differs from one torch_npu version to another,
-- and the vendor itself (`is_nvidia = device_platform == "cuda"` asks for NVIDIA hardware)
local FEATURE_WORDS = { "fused", "flash", "triton", "apex", "xformers", "tf32", "cudnn", "cuda_graph",
	"cudagraph", "compile", "capability", "nvidia" }

-- The feature word named in gate outside the comparison c, or nil.
local function gated_feature(gate, c)
	local rest = (gate.text:sub(1, c.start_byte - gate.start_byte) .. " "
		.. gate.text:sub(c.end_byte - gate.start_byte + 1)):lower()
	for _i, w in ipairs(FEATURE_WORDS) do
		if rest:find(w, 1, true) then return w end
	end
	return nil
end

-- The quote a string ferry writes at byte b must use: inside an f-string's replacement
-- field, Python before 3.12 ends the f-string at its own quote, so the other one
-- (litgpt's f"Memory used: {torch.cuda.max_memory_allocated() / 1e9:.02f} GB").
local FSTRING_FIELDS = "(string (interpolation) @field) @fstring"
local function quote_at(ctx, path, b)
	local q = '"'
	for _i, m in ipairs(ctx.query(path, FSTRING_FIELDS) or {}) do
		if m.field.start_byte <= b and m.field.end_byte > b then
			q = m.fstring.text:match("^[%a]*(['\"])") == '"' and "'" or '"'
		end
	end
	return q
end

-- Values chosen by a tensor's is_cuda: `A if t.is_cuda else B` (B under `not t.is_cuda`),
-- and the body of `if t.is_cuda:`. @pick is the side taken on CUDA.
local SELECTS = [[
(conditional_expression (_) @pick . (attribute attribute: (identifier) @a (#eq? @a "is_cuda")) @cond . (_))
(conditional_expression (_) . (not_operator argument: (attribute attribute: (identifier) @a (#eq? @a "is_cuda")) @cond) . (_) @pick)
(if_statement condition: (attribute attribute: (identifier) @a (#eq? @a "is_cuda")) @cond consequence: (block) @pick)
]]

-- The name of a CUDA-only value the side taken on CUDA uses (`self.cuda_config`,
-- `cuda_graph`), or nil: a value the code sets up for CUDA alone, often behind a
-- torch.cuda test ferry leaves to a person, so on the NPU it may never exist.
local function cuda_only_value(text)
	for w in text:gmatch("[%a_][%w_]*") do
		if w ~= "cuda" and w ~= "is_cuda" and w:lower():find("cuda", 1, true) then return w end
	end
end

-- Whether a literal collection of strings another value is tested against (timm's
-- `device.type in ('cuda',)`) lists device types with 'cuda' among them: "npu" when 'npu'
-- is one of them too (the test already lets the NPU in), true when every item is a device
-- type, false when some item is something else.
local function device_members(coll)
	local all = true
	for item in (coll.text:sub(2, -2) .. ","):gmatch("([^,]*),") do
		local name = item:match("^%s*[rRuU]?[\"']([%w_]+)[\"']%s*$")
		if name == "npu" then return "npu" end
		if (name and not DEVICE_KEYS[name]) or (not name and item:match("%S")) then all = false end
	end
	return all
end

-- The edit that adds 'npu', in the quotes of the 'cuda' string s, right after s in the
-- collection coll: ('cuda',) becomes ('cuda', 'npu') and GPUs keep their branch.
local function npu_beside(coll, s)
	local q = s.text:match("^[%a]*(['\"])")
	local after = coll.text:sub(s.end_byte - coll.start_byte + 1)
	local trailing = after:match("^%s*,%s*[%)%]}]$")
	return refs.edit(s.end_byte, trailing and #after - 1 or 0, ", " .. q .. "npu" .. q)
end

-- The text of a comparison c around its 'cuda' operand: the other side and the operator
-- (`device.type ==`, `in str(device)`, `device.type in` for a collection operand).
local function other_side(m)
	local c, operand = m.cmp, m.coll or m.s
	if m.sobj then return m.sobj.text end
	return c.text:sub(1, operand.start_byte - c.start_byte) .. " " .. c.text:sub(operand.end_byte - c.start_byte + 1)
end

-- The comparison c with its 'cuda' string s (text inner) widened to let the NPU in beside
-- CUDA, or nil when its form is not one of these: `d == 'cuda'` -> `d in ('cuda', 'npu')`,
-- `d != 'cuda'` -> `d not in (...)`, `'cuda' in d` -> `('cuda' in d or 'npu' in d)`,
-- `'cuda' not in d` -> `('cuda' not in d and 'npu' not in d)`, and for
-- `d.startswith('cuda:')` the edit of its argument, `d.startswith(('cuda:', 'npu:'))`.
local function widened(m, inner)
	local c, s = m.cmp, m.s
	local q = s.text:match("^[%a]*(['\"])")
	local npu = q .. "npu" .. inner:sub(5) .. q
	if m.sobj then return refs.edit(s.start_byte, s.end_byte - s.start_byte, "(" .. s.text .. ", " .. npu .. ")") end
	local before = c.text:sub(1, s.start_byte - c.start_byte)
	local after = c.text:sub(s.end_byte - c.start_byte + 1)
	local both = "(" .. s.text .. ", " .. npu .. ")"
	local other, op = before:match("^(.-)%s*([!=])=%s*$")
	if not other and before == "" then op, other = after:match("^%s*([!=])=%s*(.-)$") end
	if other and other ~= "" then
		return py.replace(c, other .. (op == "!" and " not in " or " in ") .. both)
	end
	if before ~= "" then return nil end
	local neg, right = after:match("^%s*(not%s+)in%s+(.-)$")
	if not right then right = after:match("^%s*in%s+(.-)$") end
	if not right or right == "" then return nil end
	if neg then
		return py.replace(c, "(" .. s.text .. " not in " .. right .. " and " .. npu .. " not in " .. right .. ")")
	end
	return py.replace(c, "(" .. s.text .. " in " .. right .. " or " .. npu .. " in " .. right .. ")")
end

-- Whether the comparison c is one side of an `or` whose other side tests for the NPU
-- (`'cuda' in str(d) or 'npu' in str(d)`): the code already lets the NPU in.
local ORS = [[(boolean_operator left: (_) @l operator: "or" right: (_) @r)]]
local function npu_alternative(ors, c)
	for _i, m in ipairs(ors) do
		for _j, pair in ipairs({ { m.l, m.r }, { m.r, m.l } }) do
			local mine, other = pair[1], pair[2]
			if mine.start_byte <= c.start_byte and mine.end_byte >= c.end_byte
				and other.text:find("[\"']npu[:\"']") then
				return true
			end
		end
	end
	return false
end

-- device.type == 'cuda', 'cuda' in str(device), t.is_cuda. Comparisons are rewritten when
-- the other side is clearly a device (a .type attribute or a name with "device" in it);
-- .is_cuda becomes .is_npu unless the file assigns an is_cuda attribute of its own. An
-- object whose is_cuda the file sets (`self.is_cuda = ...`), and `self` in a file whose
-- class defines is_cuda, hold the code's own flag, not Tensor.is_cuda: not reported.
function cuda.device_branches(ctx, path)
	local out, own_attr, own_obj = {}, false, {}
	local auto = cuda.auto(ctx)
	local ms = ctx.query(path, BRANCHES) or {}
	local gates -- comparison start -> feature word, read at the first 'cuda' comparison
	local picks -- the values is_cuda chooses, read at the first is_cuda
	local ors -- the `or` expressions of the file, read at the first 'cuda' comparison
	local function selects()
		picks = picks or ctx.query(path, SELECTS) or {}
		return picks
	end
	local function gate_of(c)
		if not gates then
			gates = {}
			for _i, g in ipairs(ctx.query(path, GATES) or {}) do
				gates[g.c.start_byte] = gates[g.c.start_byte] or gated_feature(g.gate, g.c)
			end
		end
		return gates[c.start_byte]
	end
	for _i, m in ipairs(ms) do
		if m.set then
			own_attr = true
			own_obj[m.setobj.text] = true
		elseif m.cls then
			own_attr = true
			own_obj.self = true
		end
	end
	for _i, m in ipairs(ms) do
		if m.cmp then
			local inner, at = refs.string_inner(m.s)
			local members = m.coll and inner == "cuda" and device_members(m.coll)
			if m.coll and (inner ~= "cuda" or members == "npu") then goto next_match end
			ors = ors or (cuda_string(inner) and ctx.query(path, ORS)) or nil
			if ors and npu_alternative(ors, m.cmp) then goto next_match end
			-- x.startswith('cuda:') tests the device's text like a comparison does
			if cuda_string(inner) or (m.sobj and inner == "cuda:") then
				local c = m.cmp
				local rest = other_side(m)
				-- the other side: a device's type or text, or a name for a device (`dev`)
				local side = rest:match("^%s*[%a_][%w_.]*%s*$") or rest:match("^%s*[!=]=%s*([%a_][%w_.]*)%s*$")
					or rest:match("^%s*not%s+in%s+([%a_][%w_.]*)%s*$") or rest:match("^%s*in%s+([%a_][%w_.]*)%s*$")
					or rest:match("^%s*([%a_][%w_.]*)%s+not%s+in%s*$") or rest:match("^%s*([%a_][%w_.]*)%s+in%s*$")
				local devicey = rest:lower():find("device", 1, true) or rest:find("%.%s*type%f[^%w_]")
					or (side and device_name(last_name(side:match("^%s*(.-)%s*$"))))
				-- under automatic migration device strings stay 'cuda' (transfer_to_npu maps
				-- them where they are used): a test of a string (nanoGPT's `'cuda' in device`
				-- with device = 'cuda') must stay, or it turns false and, there, autocast off;
				-- only a device object's type or text (x.device.type, str(device)) reads 'npu'
				local object_side = rest:find("%.%s*type%f[^%w_]") or rest:find("str%s*%(") or rest:find("%.device%f[^%w_]")
				if auto and not object_side then goto next_match end
				local site = {
					file = path, node = c,
					message = _("`{code}` is false on an NPU, so this CUDA-only branch will be skipped.", { code = c.text }),
					suggestion = _("Compare with 'npu' instead, or test for both device types if the code must still run on GPUs."),
				}
				local feature = devicey and gate_of(c)
				if feature == "nvidia" then
					site.fix_message = _("`{code}` answers whether the hardware is NVIDIA's, not which device to use; on the NPU it must stay false, so this comparison is left to a human.",
						{ code = c.text })
					site.fix_suggestion = _("Keep it as it is; if what it gates has an NPU counterpart, add a test for the NPU beside it.")
				elseif feature then
					site.fix_message = _("`{code}` turns on a CUDA feature ({feature}) only on CUDA: whether the NPU has it depends on the torch_npu version, so this comparison is left to a human.",
						{ code = c.text, feature = feature })
				elseif devicey and members then
					site.edits = { npu_beside(m.coll, m.s) }
				elseif devicey and not m.coll then
					-- in a package others import (its torch_npu import guarded, so it still runs on
					-- GPUs), the branch lets the NPU in beside CUDA instead of in its place
					local wide = guarded_package(ctx, path) and widened(m, inner)
					site.edits = { wide or refs.edit(at, 4, "npu") }
				else
					site.fix_message = _("`{code}` compares with 'cuda', but ferry cannot tell that the other side is a device.",
						{ code = c.text })
				end
				out[#out + 1] = site
			end
			::next_match::
		elseif m.attr and not own_obj[m.obj.text] then
			local site = {
				file = path, node = m.attr,
				message = _("`{code}` is False for tensors on an NPU.", { code = m.attr.text }),
				suggestion = _("Use `.is_npu` (available after `import torch_npu`) or check `tensor.device.type`."),
			}
			local chosen
			for _i, sel in ipairs(selects()) do
				if sel.cond.start_byte <= m.attr.start_byte and sel.cond.end_byte >= m.attr.end_byte then
					chosen = cuda_only_value(sel.pick.text)
				end
			end
			if chosen then
				-- vit-pytorch's `self.cuda_config if q.is_cuda else self.cpu_config`: cuda_config
				-- stays None unless torch.cuda is available, so is_npu would pick None
				site.fix_message = _("`{code}` chooses `{value}`, which the code sets up for CUDA alone: turned into `.is_npu`, the NPU would take a value that may never be set up there, so this test is left to a person.",
					{ code = m.attr.text, value = chosen })
				site.fix_suggestion = _("Set up an NPU counterpart of `{value}` where the code sets up the CUDA one (or keep the CPU path on the NPU), then test for the NPU here.",
					{ value = chosen })
			elseif not own_attr and guarded_package(ctx, path) then
				-- Tensor.is_npu exists only once torch_npu is imported
				local q = quote_at(ctx, path, m.attr.start_byte)
				site.edits = { py.replace(m.attr, "getattr(" .. m.obj.text .. ", " .. q .. "is_npu" .. q .. ", False)") }
			elseif not own_attr then
				site.edits = { py.replace(m.a, "is_npu") }
			else
				site.fix_message = _("`{code}` may be the code's own attribute: the file assigns an `is_cuda` attribute.",
					{ code = m.attr.text })
			end
			out[#out + 1] = site
		end
	end
	table.sort(out, by_start)
	return settle(ctx, path, out)
end

---------------------------------------------------------------------------------------
-- torch.cuda APIs

-- The NPU spelling of a torch.cuda name from its table entry: target name, and whether
-- the rewrite is a plain torch.cuda -> torch.npu rename.
local function npu_target(e, name)
	if not e or not e.npu then return nil, false end
	local target = e.npu
	if e.name ~= name then target = e.npu .. name:sub(#e.name + 1) end
	local suffix = name:sub(12)
	local plain = target == "torch.npu." .. suffix or target == "torch_npu.npu." .. suffix
	return target, plain
end

-- The index of cuda_api_map.json by name.
function cuda.api_index(ctx)
	local index = {}
	for _i, e in ipairs(ctx.data("cuda_api_map").entries) do index[e.name] = e end
	return index
end

local CUDA_IMPORTS = [[
(import_statement name: (aliased_import name: (dotted_name) @mod alias: (identifier) @alias)) @stmt
(import_from_statement module_name: (dotted_name) @mod name: (dotted_name) @name) @stmt
(import_from_statement module_name: (dotted_name) @mod name: (aliased_import name: (dotted_name) @name alias: (identifier) @alias)) @stmt
]]

-- Imports that bind a name to torch.cuda or to something inside it (not torch.cuda.amp):
-- list of {stmt=, mod=, name=, alias=, bound=, full=}.
local function cuda_imports(ctx, path)
	local out = {}
	for _i, m in ipairs(ctx.query(path, CUDA_IMPORTS) or {}) do
		local mod = py.dotted(m.mod.text)
		local name = m.name and py.dotted(m.name.text)
		local full = mod and (name and (mod .. "." .. name) or mod)
		if full and (full == "torch.cuda" or full:sub(1, 11) == "torch.cuda.")
			and full ~= "torch.cuda.amp" and full:sub(1, 15) ~= "torch.cuda.amp." then
			out[#out + 1] = {
				stmt = m.stmt, mod = m.mod, name = m.name, alias = m.alias,
				bound = m.alias and m.alias.text or name, full = full, module = mod,
			}
		end
	end
	return out
end

-- Up to n bytes of the file before (n < 0) or after byte b, "" past its ends.
local function beside(ctx, path, b, n)
	local from, to = n < 0 and math.max(0, b + n) or b, n < 0 and b or b + n
	for cut = to, from, -1 do -- the file may end sooner
		local ok, text = pcall(ctx.node_text, path, from, cut)
		if ok then return text end
	end
	return ""
end

-- The edit of `torch.cuda.is_available()` (node: its callee) in such a package, or nil.
-- The whole condition of an if, elif or while needs no parentheses.
local function guarded_probe(ctx, path, node, head)
	if beside(ctx, path, node.end_byte, 2) ~= "()" or not guarded_package(ctx, path) then return nil end
	local q = quote_at(ctx, path, node.start_byte)
	local probe = "hasattr(" .. head .. ", " .. q .. "npu" .. q .. ") and " .. head .. ".npu.is_available()"
	local before = beside(ctx, path, node.start_byte, -16)
	local keyword = ("\n" .. before):match("\n[ \t]*([a-z]+)[ \t]+$")
	local whole = (keyword == "if" or keyword == "elif" or keyword == "while")
		and beside(ctx, path, node.end_byte + 2, 4):match("^[ \t]*:")
	return refs.edit(node.start_byte, node.end_byte + 2 - node.start_byte, whole and probe or "(" .. probe .. ")")
end

-- The other NPU forms such a package gets fall back to the CUDA code where torch.npu does
-- not exist, so the package still imports and its CPU paths still run there:
--   an import statement: `try:` its NPU form, `except ImportError:` the original, when the
--     statement has its lines to itself (nil otherwise);
--   torch.cuda written out (head.cuda): `getattr(head, "npu", head.cuda)`;
--   a renamed API: `(NPU if hasattr(head, "npu") else CUDA)`.
-- A decorator is left to a person (nil): it runs on import, and Python before 3.9 takes
-- only a dotted name there.
local function in_decorator(ctx, path, node)
	return ("\n" .. beside(ctx, path, node.start_byte, -200)):match("\n[ \t]*@[ \t]*$") ~= nil
end

local function import_fallback(ctx, path, stmt, edits)
	local indent = ("\n" .. beside(ctx, path, stmt.start_byte, -200)):match("\n([ \t]*)$")
	local after = beside(ctx, path, stmt.end_byte, 200)
	if not indent or not (after == "" or after:match("^[ \t]*\r?\n") or after:match("^[ \t]*#")) then return nil end
	local text = stmt.text
	table.sort(edits, function(x, y) return x.start_byte > y.start_byte end)
	for _i, e in ipairs(edits) do
		if e.start_byte < stmt.start_byte or e.end_byte > stmt.end_byte then return nil end
		local a, b = e.start_byte - stmt.start_byte, e.end_byte - stmt.start_byte
		text = text:sub(1, a) .. e.text .. text:sub(b + 1)
	end
	local body = indent .. "    "
	return { refs.edit(stmt.start_byte, #stmt.text, "try:\n" .. body .. text .. "\n" .. indent
		.. "except ImportError:\n" .. body .. stmt.text) }
end

local function npu_or_cuda(ctx, path, node, head)
	if in_decorator(ctx, path, node) then return nil end
	local q = quote_at(ctx, path, node.start_byte)
	return { refs.edit(node.start_byte, #head + 5, "getattr(" .. head .. ", " .. q .. "npu" .. q .. ", " .. head .. ".cuda)") }
end

local function renamed_or_cuda(ctx, path, node, head, npu_text)
	if in_decorator(ctx, path, node) then return nil end
	local q = quote_at(ctx, path, node.start_byte)
	return { refs.edit(node.start_byte, #node.text, "(" .. npu_text .. " if hasattr(" .. head .. ", " .. q .. "npu" .. q .. ") else "
		.. node.text .. ")") }
end

-- Why a site of such a package has no edit.
local function fallback_note(ctx, path, node)
	if in_decorator(ctx, path, node) then
		return _("`{code}` decorates a definition of a package others import: it runs on import, also where torch_npu is not installed, and Python before 3.9 takes only a name there.",
			{ code = node.text })
	end
	return _("`{code}` is in a package others import, and its statement shares its line, so ferry cannot give it a fallback for where torch_npu is not installed.",
		{ code = node.text:match("^[^\n]*") })
end
local FALLBACK_SUGGESTION = _("Bind the NPU form with a fallback once (`try: from torch_npu.npu.amp import custom_fwd` / `except ImportError: from torch.cuda.amp import custom_fwd`, or `amp = getattr(torch, \"npu\", torch.cuda).amp`) and use that name.")

local FORK_RNG = [[
(call function: [(identifier) (attribute)] @f (#match? @f "fork_rng$") arguments: (argument_list) @args) @call
]]

-- Uses of torch.cuda.X. Written out (torch.cuda.X, or th.cuda.X with torch imported as
-- th): rewritten in place when the table has an NPU equivalent. Written through an
-- import (tc.X with `import torch.cuda as tc`, `from torch import cuda`, `from
-- torch.cuda import X`): the import is rewritten instead, when every use of that name
-- has a plain torch.npu equivalent; the uses stay as they are. Names without an
-- equivalent stay for a human. In a package others import, torch.cuda.is_available()
-- becomes the guarded probe above.
function cuda.cuda_apis(ctx, path, index, map)
	local out = {}
	local blocked = {} -- bound name -> true when one of its uses has no plain equivalent
	for _i, r in ipairs(refs.dotted(ctx, path, map)) do
		local name = r.resolved
		if name:sub(1, 11) == "torch.cuda." and name:sub(1, 15) ~= "torch.cuda.amp." then
			local e = refs.lookup(index, name)
			local head = r.text:match("^[%a_][%w_]*")
			local a = { api = name, text = r.text }
			local written = r.text ~= name
			local lit_head = r.text:match("^([%a_][%w_]*)%.cuda%.")
			local literal = lit_head and (py.expand(map, lit_head) == "torch" or (lit_head == "torch" and not map.torch))
				and r.node.text:sub(1, #lit_head + 6) == lit_head .. ".cuda."
			if not literal and cuda.stays(ctx, path, r.node.start_byte) then blocked[head] = true end
			if e and e.owner and e.owner ~= "assess.cuda_apis" then
				-- reported by the owning rule
			elseif e and e.status == "unsupported" then
				if not literal then blocked[head] = true end
				out[#out + 1] = {
					file = path, node = r.node, severity = "error",
					message = written and _("`{api}` (written `{text}`) has no NPU equivalent.", a)
						or _("`{api}` has no NPU equivalent.", a),
					suggestion = e.notes and _("Rewrite this part without it: {notes}.", { notes = _(e.notes) })
						or _("Rewrite this part without it: the vendor lists no torch_npu counterpart."),
					data = { api = name },
				}
			elseif e then
				local target, plain = npu_target(e, name)
				local edits
				local probe = literal and plain and name == "torch.cuda.is_available" and r.node.text == r.text
					and guarded_probe(ctx, path, r.node, lit_head)
				local lib = literal and guarded_package(ctx, path)
				local no_fallback
				if probe then
					edits = { probe }
				elseif literal and plain then
					edits = lib and npu_or_cuda(ctx, path, r.node, lit_head)
						or not lib and { refs.edit(r.node.start_byte + #lit_head + 1, 4, "npu") } or nil
					no_fallback = not edits
				elseif literal and (e.status == "supported" or e.rename) and r.node.text == r.text
					and target:gsub("^torch_npu%.npu%.", "torch.npu."):sub(1, 10) == "torch.npu." then
					-- the whole name changes (enable_cuda_sanitizer -> enable_npu_sanitizer);
					-- the head keeps the file's spelling of torch (th.npu...)
					local t = lit_head .. target:gsub("^torch_npu%.npu%.", "torch.npu."):sub(6)
					if lib then
						edits = renamed_or_cuda(ctx, path, r.node, lit_head, t)
						no_fallback = not edits
					else
						edits = { refs.edit(r.node.start_byte, #r.text, t) }
					end
				end
				if not literal and not plain then blocked[head] = true end
				local h = { use = (target:gsub("^torch_npu%.npu%.", "torch.npu.")), head = head,
					notes = e.notes and _(e.notes) }
				local how
				if not literal and r.text ~= name then
					how = e.notes and _("Use `{use}` (after `import torch_npu`); change the import that binds `{head}` to torch.npu; note: {notes}.", h)
						or _("Use `{use}` (after `import torch_npu`); change the import that binds `{head}` to torch.npu.", h)
				else
					how = e.notes and _("Use `{use}` (after `import torch_npu`); note: {notes}.", h)
						or _("Use `{use}` (after `import torch_npu`).", h)
				end
				a.target = target
				local message
				if e.status == "limited" then
					message = written and _("`{api}` (written `{text}`) is a CUDA API; the NPU equivalent is `{target}` (with a caveat).", a)
						or _("`{api}` is a CUDA API; the NPU equivalent is `{target}` (with a caveat).", a)
				else
					message = written and _("`{api}` (written `{text}`) is a CUDA API; the NPU equivalent is `{target}`.", a)
						or _("`{api}` is a CUDA API; the NPU equivalent is `{target}`.", a)
				end
				out[#out + 1] = {
					file = path, node = r.node,
					severity = (e.status == "limited") and "warning" or nil,
					message = message,
					suggestion = how,
					edits = edits,
					data = { api = name, suffix = name:sub(12) },
					only = (not literal and plain) and "survey" or nil,
					fix_message = (not literal and not plain) and _("`{text}` ({api}) has no plain torch.npu counterpart, so its import cannot simply be renamed.", a)
						or no_fallback and fallback_note(ctx, path, r.node) or nil,
					fix_suggestion = no_fallback and FALLBACK_SUGGESTION or nil,
				}
			else
				if not literal then blocked[head] = true end
				out[#out + 1] = {
					file = path, node = r.node,
					message = written and _("`{api}` (written `{text}`) is a CUDA API that the mapping table does not list.", a)
						or _("`{api}` is a CUDA API that the mapping table does not list.", a),
					suggestion = _("Check torch_npu's torch.cuda support list for an NPU form of this API before migrating; if there is none, remove or replace the call."),
					data = { api = name },
				}
			end
		end
	end
	-- torch.random.fork_rng(devices=...) forks CUDA's generators unless told the device type
	if ctx.find(path, "fork_rng") then
		for _i, m in ipairs(ctx.query(path, FORK_RNG) or {}) do
			local d = py.dotted(m.f.text)
			local name = d and py.expand(map, d)
			if (name == "torch.random.fork_rng" or name == "torch.fork_rng") and not m.args.text:find("device_type", 1, true)
				and m.args.text:match("^%(%s*[^%s%)]") then
				local q = quote_at(ctx, path, m.call.start_byte)
				local value = guarded_package(ctx, path)
					and ("device_type=" .. q .. "npu" .. q .. " if hasattr(torch, " .. q .. "npu" .. q .. ") else " .. q .. "cuda" .. q)
					or ("device_type=" .. q .. "npu" .. q)
				local before = m.args.text:sub(1, -2):match("^(.-)%s*$")
				local sep = before:sub(-1) == "," and " " or ", "
				out[#out + 1] = {
					file = path, node = m.call, key = "fork_rng",
					message = _("`{code}` forks the random generators of the devices it is given as CUDA devices (its device_type defaults to 'cuda').",
						{ code = m.call.text:match("^[^\n]*") }),
					suggestion = _("Pass device_type=\"npu\" (torch 2.1 or later), so the NPU's generators are forked."),
					edits = { refs.edit(m.args.start_byte + #before, #m.args.text - #before - 1, sep .. value) },
				}
			end
		end
	end
	-- the imports that bind torch.cuda names
	local stmts = {}
	for _i, imp in ipairs(cuda_imports(ctx, path)) do
		local k = imp.stmt.start_byte
		stmts[k] = stmts[k] or { stmt = imp.stmt, imps = {} }
		table.insert(stmts[k].imps, imp)
	end
	for _i, s in pairs(stmts) do
		local ok, edits = true, {}
		for _i, imp in ipairs(s.imps) do
			if blocked[imp.bound] then ok = false end
			if imp.full ~= "torch.cuda" then
				local _t, plain = npu_target(refs.lookup(index, imp.full), imp.full)
				if not plain then ok = false end
			end
		end
		local first = s.imps[1]
		if first.module == "torch.cuda" or first.module:sub(1, 11) == "torch.cuda." then
			-- import torch.cuda as tc / from torch.cuda import X: the module is renamed
			if first.module == "torch.cuda" then
				edits[1] = py.replace(first.mod, "torch.npu")
			else
				edits[1] = refs.edit(first.mod.start_byte, first.mod.end_byte - first.mod.start_byte,
					"torch.npu" .. first.module:sub(11))
			end
		else
			-- from torch import cuda [as c]: bind the NPU module under the same name
			for _i, imp in ipairs(s.imps) do
				if imp.full == "torch.cuda" then
					edits[#edits + 1] = py.replace(imp.name, imp.alias and "npu" or "npu as cuda")
				end
			end
		end
		local text = s.stmt.text:match("^[^\n]*")
		local site = {
			file = path, node = s.stmt, key = "import",
			message = _("`{code}` imports torch.cuda, the CUDA module.", { code = text }),
			suggestion = _("Import the same names from torch.npu (after `import torch_npu`); the code that uses them stays as it is."),
			only = "fix",
		}
		if ok and #edits > 0 and guarded_package(ctx, path) then
			site.edits = import_fallback(ctx, path, s.stmt, edits)
			if not site.edits then
				site.fix_message = fallback_note(ctx, path, s.stmt)
				site.fix_suggestion = FALLBACK_SUGGESTION
			end
		elseif ok and #edits > 0 then
			site.edits = edits
		else
			site.fix_message = _("`{code}` imports torch.cuda, and some of what it binds has no plain torch.npu counterpart.", { code = text })
			site.suggestion = _("Fix or remove the uses reported without an automatic fix, then import from torch.npu (after `import torch_npu`).")
		end
		out[#out + 1] = site
	end
	table.sort(out, by_start)
	return settle(ctx, path, out)
end

---------------------------------------------------------------------------------------
-- mixed precision

local AMP_CALLS = [[
(call function: (_) @f arguments: (argument_list . (string) @s)) @call
(call function: (_) @f arguments: (argument_list (keyword_argument name: (identifier) @k value: (string) @s))) @call
]]
local AMP_IMPORT_MODULES = [[
(import_statement name: (aliased_import name: (dotted_name) @mod alias: (identifier) @alias)) @stmt
(import_from_statement module_name: (dotted_name) @mod) @stmt
]]

-- The apex fused optimizers of affinity_apis.json, by dotted name.
function cuda.apex_fused(ctx)
	local fused = {}
	for _i, e in ipairs(ctx.data("affinity_apis").entries) do
		if e.original:match("^apex%.") then fused[e.original] = e end
	end
	return fused
end

-- Library functions that choose CUDA for their caller (library_devices.json), such as
-- ultralytics' autocast(enabled, device="cuda"), which yolov5 imports as
-- smart_amp_autocast and re-exports from its own utils/torch_utils.py.

-- The name a dotted import name stands for once the project's own modules that re-export
-- it are followed (a few steps; a relative import ends the search).
local reexports_of = setmetatable({}, { __mode = "k" })
local function follow_reexports(ctx, full)
	local seen = reexports_of[ctx] or {}
	reexports_of[ctx] = seen
	if seen[full] then return seen[full] end
	local name = full
	for _i = 1, 4 do
		local module, last = name:match("^(.+)%.([%a_][%w_]*)$")
		if not module then break end
		local base, file = module:gsub("%.", "/"), nil
		for _j, cand in ipairs({ base .. ".py", base .. "/__init__.py" }) do
			if #ctx.files("^" .. cand:gsub("%p", "%%%0") .. "$") > 0 then
				file = cand
				break
			end
		end
		local bound = file and (py.aliases(ctx, file) or {})[last]
		if not bound or bound:sub(1, 1) == "." then break end
		name = bound
	end
	seen[full] = name
	return name
end

local LIBRARY_CALLS = "(call function: [(identifier) (attribute)] @f arguments: (argument_list) @args) @call"
-- Calls of the library_devices.json functions of one kind, however the file imports them
-- (through the project's own re-exports): {call=, args=, f=, entry=, name=} per call.
local function library_calls(ctx, path, map, kind)
	local entries = {}
	for _i, e in ipairs(ctx.data("library_devices").entries or {}) do
		if e.kind == kind then entries[e.name] = e end
	end
	local heads = {}
	for bound, full in pairs(map) do
		local target = follow_reexports(ctx, full)
		for name in pairs(entries) do
			if target == name or name:sub(1, #target + 1) == target .. "." then heads[bound] = true end
		end
	end
	if not next(heads) then return {} end
	local out = {}
	for _i, m in ipairs(ctx.query(path, LIBRARY_CALLS) or {}) do
		local head = m.f.text:match("^[%a_][%w_]*")
		local name = heads[head] and follow_reexports(ctx, py.expand(map, m.f.text))
		local e = name and entries[name]
		if e then out[#out + 1] = { call = m.call, args = m.args, f = m.f, entry = e, name = name } end
	end
	return out
end

-- Calls of a library autocast whose device defaults to 'cuda', made without a device:
-- {call=, args=, entry=, name=} per call.
local function library_autocasts(ctx, path, map)
	local out, args = {}, nil
	for _i, c in ipairs(library_calls(ctx, path, map, "autocast")) do
		args = args or py.argument_lists(ctx, path) -- positional arguments and keywords of every call's list
		local e = c.entry
		local k = args[c.args.start_byte] or { n = 0, kw = {} }
		if not k.splat and not k.kw[e.param] and k.n <= e.position then
			out[#out + 1] = { call = c.call, args = c.args, entry = e, name = c.name, given = k.n + (next(k.kw) and 1 or 0) }
		end
	end
	return out
end

-- Calls of a library timer that synchronizes CUDA only (library_devices.json kind sync:
-- ultralytics' time_sync, which yolov5 re-exports): {call=, f=, entry=, name=} per call.
function cuda.library_syncs(ctx, path, map)
	return library_calls(ctx, path, map, "sync")
end

-- torch.cuda.amp (imports and uses), autocast/GradScaler created for 'cuda', apex.amp,
-- amp_C and apex fused optimizers. Rewrites: `from torch.cuda.amp import X` ->
-- `from torch_npu.npu.amp import X` (the package itself, importable without aliasing),
-- torch.cuda.amp.X -> torch.npu.amp.X, autocast('cuda') -> autocast('npu'). Sites with
-- `human = true` have no rewrite (apex, amp_C).
function cuda.amp(ctx, path, fused, map)
	local out = {}
	local mods = {}
	for _i, m in ipairs(ctx.query(path, AMP_IMPORT_MODULES) or {}) do
		mods[m.stmt.start_byte] = mods[m.stmt.start_byte] or m
	end
	local lib = guarded_package(ctx, path)
	local function module_edit(stmt)
		local m = mods[stmt.start_byte]
		if m and m.mod.text:sub(1, 14) == "torch.cuda.amp" and not m.mod.text:sub(15, 15):match("[%w_]") then
			local edits = { refs.edit(m.mod.start_byte, 10, "torch_npu.npu") }
			if lib then return import_fallback(ctx, path, stmt, edits) end
			return edits
		end
	end
	local imports = py.imports(ctx, path) or {}
	-- `from torch.cuda import amp` alone binds the CUDA AMP module: the NPU's is
	-- torch_npu.npu.amp (with more names, the torch.cuda import's own rewrite moves them all)
	local from_cuda = {}
	for _i, imp in ipairs(imports) do
		if imp.module == "torch.cuda" then from_cuda[imp.node.start_byte] = (from_cuda[imp.node.start_byte] or 0) + 1 end
	end
	local function amp_module_edit(stmt)
		local m = mods[stmt.start_byte]
		if m and m.mod.text == "torch.cuda" and from_cuda[stmt.start_byte] == 1 then
			local edits = { refs.edit(m.mod.start_byte, 10, "torch_npu.npu") }
			if lib then return import_fallback(ctx, path, stmt, edits) end
			return edits
		end
	end
	-- a site of the package others import that gets no fallback says why
	local function settle_lib(site, node)
		if lib and not site.edits and not site.human then
			site.fix_message = fallback_note(ctx, path, node)
			site.fix_suggestion = FALLBACK_SUGGESTION
		end
		return site
	end
	for _i, imp in ipairs(imports) do
		local full = imp.full or imp.module
		local node = imp.node
		if imp.module == "torch.cuda" and imp.name == "amp" and from_cuda[node.start_byte] == 1 then
			out[#out + 1] = settle_lib({
				file = path, node = node, key = full,
				message = _("`{code}` binds torch.cuda.amp, the CUDA mixed-precision module: where CUDA is not available its autocast and GradScaler turn themselves off with a warning, so the NPU run would train without mixed precision or loss scaling.",
					{ code = ctx.node_text(path, node.start_byte, node.end_byte) }),
				suggestion = _("Import the NPU's module instead (`{code}`); the code that uses `{alias}` stays as it is.",
					{ code = "from torch_npu.npu import amp" .. (imp.alias and " as " .. imp.alias or ""), alias = imp.alias or "amp" }),
				edits = amp_module_edit(node),
			}, node)
		elseif imp.name and (imp.module == "torch.cuda.amp" or imp.module:match("^torch%.cuda%.amp%.")) then
			out[#out + 1] = settle_lib({
				file = path, node = node,
				message = _("`{name}` is imported from torch.cuda.amp, the CUDA mixed-precision module.", { name = full }),
				suggestion = _("Import it from `torch.npu.amp` instead (after `import torch_npu`), or use `torch.autocast('npu')` and `torch.npu.amp.GradScaler()`."),
				key = full,
				edits = module_edit(node),
			}, node)
		elseif imp.alias and (imp.module == "torch.cuda.amp" or imp.module:match("^torch%.cuda%.amp%.")) then
			out[#out + 1] = settle_lib({
				file = path, node = node, only = "fix", key = full,
				message = _("`{name}` is imported as `{alias}`: CUDA mixed precision.", { name = full, alias = imp.alias }),
				suggestion = _("Import it from `torch_npu.npu.amp` instead; the code that uses `{alias}` stays as it is.", { alias = imp.alias }),
				edits = module_edit(node),
			}, node)
		elseif imp.module == "amp_C" or imp.module:match("^amp_C%.") then
			out[#out + 1] = {
				file = path, node = node, severity = "error", human = true,
				message = _("`amp_C` is apex's CUDA kernel module; it is not supported on NPU."),
				suggestion = _("Delete `import amp_C` and replace the code that calls it with plain torch operations or an NpuFused optimizer."),
				key = full,
			}
		elseif full == "apex.amp" or full:match("^apex%.amp%.") then
			out[#out + 1] = {
				file = path, node = node, human = true,
				message = _("apex.amp (`{name}`) provides mixed precision through NVIDIA's apex.", { name = full }),
				suggestion = _("Prefer native AMP: `torch.autocast('npu')` with `torch.npu.amp.GradScaler`; if apex.amp stays, call `amp.initialize` before wrapping the model in DDP."),
				key = full,
			}
		end
	end
	for _i, r in ipairs(refs.dotted(ctx, path, map)) do
		local name = r.resolved
		local sub = name:match("^torch%.cuda%.amp%.(.+)$")
		if sub and r.node.text:sub(1, 11) == "torch.cuda." then
			out[#out + 1] = settle_lib({
				file = path, node = r.node,
				message = _("`{api}` is CUDA mixed precision.", { api = r.text }),
				suggestion = _("Use `torch.npu.amp.{name}` (after `import torch_npu`); it takes the same arguments.", { name = sub }),
				edits = lib and npu_or_cuda(ctx, path, r.node, "torch") or not lib and { refs.edit(r.node.start_byte + 6, 4, "npu") } or nil,
			}, r.node)
		elseif sub and not r.plain then
			out[#out + 1] = {
				file = path, node = r.node, only = "survey",
				message = _("`{api}` is torch.cuda.amp.{name}, CUDA mixed precision.", { api = r.text, name = sub }),
				suggestion = _("Use `torch.npu.amp.{name}` (after `import torch_npu`) and change the import that binds `{head}`.",
					{ name = sub, head = r.text:match("^[%a_][%w_]*") }),
			}
		elseif fused[name] then
			out[#out + 1] = {
				file = path, node = r.node, human = true,
				message = _("`{api}` is an apex fused optimizer built on CUDA kernels; migration tools do not convert it.", { api = r.text }),
				suggestion = _("Replace it with `{replacement}` (same hyper-parameters) or a torch.optim optimizer.",
					{ replacement = fused[name].replacement }),
				data = { replacement = fused[name].replacement },
			}
		elseif name == "apex.amp.initialize" or name == "apex.amp.scale_loss" then
			out[#out + 1] = {
				file = path, node = r.node, human = true,
				message = _("`{api}` uses apex.amp.", { api = r.text }),
				suggestion = _("Move to native AMP (`torch.autocast('npu')`, `torch.npu.amp.GradScaler`); if apex.amp stays, call amp.initialize before DDP wraps the model."),
			}
		end
	end
	for _i, m in ipairs(ctx.query(path, AMP_CALLS) or {}) do
		local fname = amp_func(ctx, path, m.f)
		if fname and (not m.k or m.k.text == "device_type" or m.k.text == "device") then
			local inner, at = refs.string_inner(m.s)
			if inner == "cuda" then
				-- in a package others import, 'npu' only where torch.npu exists: autocast
				-- refuses a device type it does not know
				local edits = { refs.edit(at, 4, "npu") }
				if lib then
					local q = m.s.text:sub(at - m.s.start_byte, at - m.s.start_byte)
					edits = map.torch == "torch" and m.s.text == q .. "cuda" .. q
						and { py.replace(m.s, q .. "npu" .. q .. " if hasattr(torch, " .. q .. "npu" .. q .. ") else " .. m.s.text) } or nil
				end
				out[#out + 1] = settle_lib({
					file = path, node = m.call,
					message = _("`{name}` is created for the 'cuda' device.", { name = fname }),
					suggestion = _("Pass 'npu' as the device type."),
					edits = edits,
				}, m.s)
			end
		end
	end
	for _i, c in ipairs(library_autocasts(ctx, path, map)) do
		-- in a package others import, 'npu' only where torch.npu exists, as for autocast('cuda')
		local value = lib and '"npu" if hasattr(torch, "npu") else "cuda"' or '"npu"'
		local arg = c.entry.param .. "=" .. value
		-- before the closing parenthesis; after a trailing comma, as one more argument
		-- with its own comma, so a list written one argument per line stays one
		local close, added = c.args.end_byte - 1, (c.given == 0 and "" or ", ") .. arg
		local trailing = c.args.text:match("(),%s*%)$")
		if trailing and c.given > 0 then
			close, added = c.args.start_byte + trailing, " " .. arg .. ","
		end
		out[#out + 1] = {
			file = path, node = c.call,
			message = _("`{call}` is `{name}`, which makes autocast for the 'cuda' device unless given another: where CUDA is not available torch turns that autocast off, so on the NPU this code runs without mixed precision (a GradScaler beside it still scales the loss).",
				{ call = c.call.text:gsub("%s+", " "), name = c.name }),
			suggestion = _("Pass `{param}=\"npu\"` (after `import torch_npu`), as in `{fixed}`.",
				{ param = c.entry.param, fixed = (c.call.text:sub(1, close - c.call.start_byte) .. added
					.. c.call.text:sub(close - c.call.start_byte + 1)):gsub("%s+", " ") }),
			edits = (not lib or map.torch == "torch") and { refs.edit(close, 0, added) } or nil,
		}
	end
	table.sort(out, by_start)
	return settle(ctx, path, out)
end

---------------------------------------------------------------------------------------
-- Megatron-LM / MindSpeed projects (megatron.json)

-- The project's Megatron facts when it is a Megatron-LM or MindSpeed project (a
-- megatron/ package, a pretrain_gpt.py-style entry script, or code importing megatron
-- or mindspeed): {keep = {name -> entry}, adaptor = entry, mindspeed = imported}; else nil.
-- Worked out once per run: the detectors ask for every file, and the answer reads the
-- whole project (asking per file made a check quadratic in the project's size).
local megatron_of = setmetatable({}, { __mode = "k" })

-- Whether text imports the module name (or a module inside it) at the top level of a
-- file: an import indented under an `if is_megatron_lm_available():`, a `try:` or a
-- function is an optional integration (accelerate's), not a project built on it.
local function imports_at_top(text, name)
	local t = "\n" .. text
	for _i, lead in ipairs({ "\nimport ", "\nfrom " }) do
		local at = 1
		while true do
			local s, e = t:find(lead .. name, at, true)
			if not s then break end
			if not t:sub(e + 1, e + 1):match("[%w_]") then return true end
			at = e + 1
		end
	end
	return false
end

local function find_megatron(ctx)
	local facts = ctx.data("megatron")
	local found, mindspeed = false, false
	for _i, m in ipairs(facts.markers) do
		if m.kind == "folder" and #ctx.files("^" .. m.name:gsub("%p", "%%%0") .. ".*%.py$") > 0 then found = true end
		if m.kind == "entry" and #ctx.files("^" .. m.name:gsub("%p", "%%%0") .. "$") > 0 then found = true end
	end
	-- every Python file of the project, not the ones the asking check is offered: the
	-- answer must not depend on which check asks
	-- (searched in C; only a file naming a marker is read into Lua)
	for _i, path in ipairs(ctx.files("%.py$")) do
		for _i, m in ipairs(facts.markers) do
			if m.kind == "import" and ctx.find(path, m.name) and imports_at_top(ctx.read(path) or "", m.name) then
				found = true
				if m.name == "mindspeed" then mindspeed = true end
			end
		end
	end
	if not found then return nil end
	local keep = {}
	for _i, k in ipairs(facts.keep) do keep[k.name] = k end
	return { keep = keep, adaptor = facts.adaptor[1], mindspeed = mindspeed }
end

function cuda.megatron(ctx)
	local mg = megatron_of[ctx]
	if mg == nil then
		mg = find_megatron(ctx) or false
		megatron_of[ctx] = mg
	end
	return mg or nil
end

-- Turns a rewrite site into a "stays as it is" note for a Megatron project; what is
-- the code the site is about, shown as `what` ("the backend" for a backend string).
local function megatron_keeps(site, mg, what, k, backend)
	site.edits, site.fix_message, site.fix_suggestion, site.human = nil, nil, nil, nil
	site.severity = "info"
	local a = { what = what, why = k.why and _(k.why) or "" }
	site.message = backend and _("The backend {what} stays as it is on Ascend in this Megatron project: {why}.", a)
		or _("`{what}` stays as it is on Ascend in this Megatron project: {why}.", a)
	site.suggestion = mg.mindspeed and _("Keep it; MindSpeed is already imported.")
		or _("Keep it, and add `{adaptor}` {where}.", { adaptor = mg.adaptor.name, where = mg.adaptor.where and _(mg.adaptor.where) or "" })
	site.key = "megatron:" .. (site.key or (backend and ("The backend " .. what) or ("`" .. what .. "`")))
	return site
end

---------------------------------------------------------------------------------------
-- NCCL -> HCCL

-- A backend string: 'nccl', or a device:backend list such as 'cpu:gloo,cuda:nccl'. Every
-- item must be a backend name, so names that merely contain "nccl" ('nccl_ub',
-- 'ncclep', 'gtp_remat_nccl_ub') are not backends. torch reads the name in any case
-- (detectron2 passes "NCCL"), so the spellings are compared in lower case.
local BACKENDS = { nccl = true, gloo = true, mpi = true, ucc = true, hccl = true }
local BACKEND_DEVICES = { cpu = true, cuda = true, npu = true, meta = true }
local function backend_string(inner)
	local has = false
	for item in (inner:lower() .. ","):gmatch("([^,]*),") do
		local dev, name = item:match("^%s*([%a_]+):([%a_]+)%s*$")
		if not dev then name = item:match("^%s*([%a_]+)%s*$") end
		if not name or not BACKENDS[name] or (dev and not BACKEND_DEVICES[dev]) then return false end
		has = has or name == "nccl"
	end
	return has
end

-- The edits turning every nccl of a backend string (inner, starting at byte at) into hccl,
-- and cuda into npu, each in the spelling's own case ("NCCL" -> "HCCL").
local function backend_edits(inner, at)
	local edits, lower = {}, inner:lower()
	local function swap(word, to)
		local i = 1
		while true do
			local a, b = lower:find(word, i, true)
			if not a then break end
			local orig, out = inner:sub(a, b), {}
			for k = 1, #to do
				local c = to:sub(k, k)
				out[k] = orig:sub(k, k):match("%u") and c:upper() or c
			end
			edits[#edits + 1] = refs.edit(at + a - 1, #word, table.concat(out))
			i = b + 1
		end
	end
	swap("nccl", "hccl")
	if lower ~= "nccl" then swap("cuda", "npu") end
	table.sort(edits, function(x, y) return x.start_byte < y.start_byte end)
	return edits
end

-- Start bytes of strings that name something rather than hold a value: subscript keys
-- (kwargs["nccl"]), dict keys, attribute names given to getattr/setattr/hasattr, and
-- argparse dest=. They are keys of the program's own data and are never rewritten.
local NAME_STRINGS = [[
(subscript subscript: (string) @s)
(pair key: (string) @s)
(call function: (identifier) @f (#any-of? @f "getattr" "setattr" "hasattr" "delattr") arguments: (argument_list . (_) . (string) @s))
(keyword_argument name: (identifier) @k (#eq? @k "dest") value: (string) @s)
]]
local function name_strings(ctx, path)
	local out = {}
	for _i, m in ipairs(ctx.query(path, NAME_STRINGS) or {}) do out[m.s.start_byte] = true end
	return out
end

-- 'nccl' wherever the code names the backend (init_process_group, backend=, argparse
-- defaults and choices, comparisons, lists of allowed backends), never in messages;
-- dist.is_nccl_available(); Backend.NCCL and ProcessGroupNCCL (for a human).
function cuda.backend(ctx, path, map)
	local out = {}
	local messages = refs.message_strings(ctx, path)
	local keys = name_strings(ctx, path)
	-- `if backend == "nccl": warnings.warn(...)` warns about NCCL itself: on HCCL the
	-- test is false, as it should be
	local told = refs.message_branch_tests(ctx, path)
	local function in_told(node)
		for _i, r in ipairs(told) do
			if r.s <= node.start_byte and node.end_byte <= r.e then return true end
		end
		return false
	end
	for _i, s in ipairs(refs.strings(ctx, path)) do
		local inner, at = refs.string_inner(s.node)
		if backend_string(inner) and not keys[s.node.start_byte] and not in_told(s.node) then
			local edits = backend_edits(inner, at)
			out[#out + 1] = {
				file = path, node = s.node,
				message = _("The distributed backend {text} is NVIDIA's NCCL.", { text = s.node.text }),
				suggestion = _("Use 'hccl', Ascend's collective library (comparisons and lists of allowed backends need the same change)."),
				edits = not messages[s.node.start_byte] and edits or nil,
				fix_message = messages[s.node.start_byte] and _("The message {text} names NCCL; ferry leaves text for people alone.", { text = s.node.text }) or nil,
			}
		end
	end
	local mg = cuda.megatron(ctx)
	if mg then
		for _i, site in ipairs(out) do
			megatron_keeps(site, mg, site.node.text, mg.keep["--distributed-backend"], true)
		end
	end
	for _i, r in ipairs(refs.dotted(ctx, path, map)) do
		local name = r.resolved
		if name == "torch.distributed.is_nccl_available" then
			local edits
			local a = r.node.text:find("is_nccl_available", 1, true)
			if a then edits = { refs.edit(r.node.start_byte + a - 1, #"is_nccl_available", "is_hccl_available") } end
			out[#out + 1] = {
				file = path, node = r.node,
				message = _("`{api}` asks whether NCCL is available, which is never true on an NPU host.", { api = r.text }),
				suggestion = _("Call `torch.distributed.is_hccl_available()` instead."),
				edits = edits,
			}
		elseif name:match("^torch%.distributed%..*NCCL") then
			out[#out + 1] = {
				file = path, node = r.node, human = true,
				message = _("`{api}` refers to the NCCL backend.", { api = r.text }),
				suggestion = _("Refer to HCCL instead (torch_npu's ProcessGroupHCCL, or the backend name 'hccl')."),
			}
		end
	end
	table.sort(out, by_start)
	return settle(ctx, path, out)
end

-- Launch scripts: --backend nccl, --dist-backend=nccl (comments skipped).
function cuda.backend_shell(ctx, path)
	local out = {}
	local mg = cuda.megatron(ctx)
	for _i, l in ipairs(refs.shell_lines(ctx, path)) do
		for s, word in l.code:gmatch("%-%-[%w_%-]*backend[=%s]+[\"']?()(nccl)%f[^%w_]") do
			local flag = l.code:match("%-%-[%w_%-]*backend[=%s]+[\"']?nccl")
			local site = {
				file = path, line = l.line, col = s, end_line = l.line, end_col = s + #word,
				message = _("The launch script selects the NCCL backend (`{flag}`).", { flag = flag }),
				suggestion = _("Pass 'hccl' instead, Ascend's collective library."),
				edits = { refs.edit(l.pos - 1 + s - 1, #word, "hccl") },
				key = "sh:" .. s,
			}
			local k = mg and mg.keep[flag:match("^(%-%-[%w_%-]*backend)")]
			out[#out + 1] = k and megatron_keeps(site, mg, flag, k) or site
		end
	end
	return out
end

---------------------------------------------------------------------------------------
-- environment variables

local function is_gpu_var(name)
	return name:match("^CUDA_[A-Z0-9_]+$") or name:match("^NCCL_[A-Z0-9_]+$")
		or name:match("^TORCH_NCCL_[A-Z0-9_]+$") or name == "PYTORCH_CUDA_ALLOC_CONF"
		or name:match("^CUBLAS_[A-Z0-9_]+$")
end

-- env_vars.json as a lookup function: name -> entry (exact names, then NAME_* fallbacks).
function cuda.env_table(ctx)
	local exact, prefix = {}, {}
	for _i, e in ipairs(ctx.data("env_vars").entries) do
		if e.name:sub(-1) == "*" then prefix[#prefix + 1] = e else exact[e.name] = e end
	end
	return function(name)
		if exact[name] then return exact[name] end
		for _i, e in ipairs(prefix) do
			if name:sub(1, #e.name - 1) == e.name:sub(1, -2) then return e end
		end
		if name:match("^TORCH_NCCL_") then
			for _i, e in ipairs(prefix) do
				if e.name == "NCCL_*" then return e end
			end
		end
		return nil
	end
end

local function env_site(path, name, e, at, safe, pos)
	local a = { name = name, npu = e.npu, notes = e.notes and _(e.notes) }
	local f = {
		file = path,
		message = name:match("NCCL") and _("`{name}` configures NVIDIA's NCCL and has no effect on Ascend.", a)
			or name:match("^CUBLAS_") and _("`{name}` configures NVIDIA's cuBLAS and has no effect on Ascend.", a)
			or _("`{name}` configures the CUDA runtime and has no effect on Ascend.", a),
		key = pos.key or name,
	}
	if e.npu then
		f.suggestion = e.notes and _("Use `{npu}` instead; {notes}.", a) or _("Use `{npu}` instead.", a)
	else
		f.suggestion = e.notes and _("Remove it; {notes}.", a) or _("Remove it; there is no Ascend counterpart.")
	end
	if e.npu and e.exact then
		if safe then
			f.edits = { refs.edit(at, #name, e.npu) }
		else
			f.fix_message = _("`{name}` appears in text ferry does not rewrite (a message, or not a variable reference or assignment).", a)
		end
	end
	for k, v in pairs(pos) do
		if k ~= "key" then f[k] = v end
	end
	return f
end

-- CUDA_*/NCCL_* names used as environment keys in Python strings (os.environ[...],
-- os.getenv(...), env dicts); the edit renames those env_vars.json marks exact, except
-- in messages.
-- In a Megatron project the variables megatron.json keeps become notes, not rewrites.
local function env_keep(ctx, out)
	local mg
	for i, site in ipairs(out) do
		local name = site.key and site.key:match("^([A-Z][A-Z0-9_]*)")
		if name then
			if mg == nil then mg = cuda.megatron(ctx) or false end
			local k = mg and mg.keep[name]
			if k then out[i] = megatron_keeps(site, mg, name, k) end
		end
	end
	return out
end

function cuda.env_python(ctx, path, entry)
	local out = {}
	local messages = refs.message_strings(ctx, path)
	for _i, s in ipairs(refs.strings(ctx, path)) do
		local inner, at = refs.string_inner(s.node)
		local e = is_gpu_var(inner) and entry(inner)
		if e then out[#out + 1] = env_site(path, inner, e, at, not messages[s.node.start_byte], { node = s.node }) end
	end
	return settle(ctx, path, env_keep(ctx, out))
end

-- The same names in shell scripts. Renamed only where the shell uses them as variables:
-- $NAME, ${NAME...}, NAME=value (export, command prefix) and after export/unset/readonly.
function cuda.env_shell(ctx, path, entry)
	local out = {}
	for _i, l in ipairs(refs.shell_lines(ctx, path)) do
		local code = l.code
		for s, name in code:gmatch("()%f[%w_]([A-Z][A-Z0-9_]*)%f[^%w_]") do
			local e = is_gpu_var(name) and entry(name)
			if e then
				local before = code:sub(1, s - 1)
				local after = code:sub(s + #name, s + #name)
				local safe = before:match("%$$") or before:match("%${$")
					or (after == "=" and (before == "" or before:match("[%s;&|(]$")))
					or (before:match("%f[%w](%a+)%s+$") == "export" or before:match("%f[%w](%a+)%s+$") == "unset"
						or before:match("%f[%w](%a+)%s+$") == "readonly")
				out[#out + 1] = env_site(path, name, e, l.pos - 1 + s - 1, safe,
					{ line = l.line, col = s, end_line = l.line, end_col = s + #name, key = name .. "@" .. s })
			end
		end
	end
	return settle(ctx, path, env_keep(ctx, out))
end

---------------------------------------------------------------------------------------
-- import torch_npu / transfer_to_npu

local TOP_IMPORTS = [[
(module (import_statement) @imp)
(module (import_from_statement) @from)
(module (future_import_statement) @future)
(module (if_statement condition: (comparison_operator (identifier) @n (string) @s) (#eq? @n "__name__")) @main)
]]
-- `import torch` below the top level: under an if or a try, in a function.
local NESTED_TORCH = [[
((import_statement) @imp (#match? @imp "^import[ \t]+torch([ \t]+as[ \t]+[A-Za-z_][A-Za-z_0-9]*)?[ \t]*$"))
]]
-- Imports of torch_npu anywhere: in try/except, under an if, in a function.
local NPU_IMPORTS = [[
((import_statement) @imp (#match? @imp "torch_npu"))
((import_from_statement) @from (#match? @from "torch_npu"))
]]

-- Whether an import statement's text imports torch_npu, and transfer_to_npu.
local function imports_npu(st)
	local t = st.text:gsub("#[^\n]*", ""):gsub("\\\r?\n", " "):gsub("%s+", " ")
	if t:match("^import .*%f[%w_]torch_npu%f[^%w_]") or t:match("^from torch_npu[%s%.]") then
		return true, t:match("transfer_to_npu") ~= nil
	end
	return false, false
end

-- The file's imports: {torch_npu=, transfer=, anchor=, before=, main=}: torch_npu /
-- transfer_to_npu already imported, anywhere in the file (also inside try/except, an if
-- or a function: a second import would only duplicate it); the top-level statement after
-- which `import torch_npu` goes (a plain `import torch` that comes before every other
-- torch import), or else the torch import before which it goes; main: an entry script.
function cuda.import_plan(ctx, path)
	local ms = ctx.query(path, TOP_IMPORTS)
	if not ms then return nil end
	table.sort(ms, function(a, b)
		local x, y = a.imp or a.from or a.future or a.main, b.imp or b.from or b.future or b.main
		return x.start_byte < y.start_byte
	end)
	local plan = {}
	for _i, m in ipairs(ms) do
		if m.main then
			if m.s.text:match("^[\"']+__main__[\"']+$") then plan.main = true end
		else
			local st = m.imp or m.from or m.future
			local t = st.text:gsub("#[^\n]*", ""):gsub("\\\r?\n", " "):gsub("%s+", " ")
			local torchy = (m.imp and (t:match("^import torch%f[^%w_]") or t:match(",%s*torch%f[^%w_]")))
				or (m.from and t:match("^from torch[%s%.]"))
			if torchy and not plan.anchor and not plan.before then
				local plain = t:match("^import torch%s*$") or t:match("^import torch as [%a_][%w_]*%s*$")
				if plain then plan.anchor = st else plan.before = st end
			end
		end
	end
	local text = ctx.read(path) or ""
	if text:find("torch_npu", 1, true) then
		for _i, m in ipairs(ctx.query(path, NPU_IMPORTS) or {}) do
			local npu, transfer = imports_npu(m.imp or m.from)
			plan.torch_npu = plan.torch_npu or npu
			plan.transfer = plan.transfer or transfer
		end
	end
	return plan
end

-- The guarded import a package's __init__.py gets: the package still imports where
-- torch_npu is not installed.
local GUARDED = { "try:", "    import torch_npu", "except ImportError:", "    pass" }

local TOP_STATEMENTS = "(module (_) @st)"

-- The site inserting `import torch_npu` (and, with transfer, the transfer_to_npu import)
-- into one file, or nil when nothing is to be inserted. With guarded, the guarded import
-- instead, after `import torch` or else before the file's first statement (after its
-- docstring and __future__ imports). Keeps the file's line endings.
function cuda.insert_import(ctx, path, plan, transfer, guarded)
	local text = ctx.read(path)
	if not text or not plan then return nil end
	local lines = {}
	if guarded then
		if not plan.torch_npu then lines = GUARDED end
	else
		if not plan.torch_npu then lines[#lines + 1] = "import torch_npu" end
		if transfer and not plan.transfer then lines[#lines + 1] = "from torch_npu.contrib import transfer_to_npu" end
	end
	if #lines == 0 then return nil end
	local anchor = plan.anchor
	local st = anchor or (not guarded and plan.before) or nil
	local at, eol, prefix, suffix = nil, nil, "", ""
	local indent = ""
	if not st and not guarded then
		-- torch imported only where it is optional (`if is_torch_available(): import torch`,
		-- a try, a function): torch_npu goes right after it, at its indentation, so the
		-- file still runs where torch is missing
		local first
		for _i, m in ipairs(ctx.query(path, NESTED_TORCH) or {}) do
			if not first or m.imp.start_byte < first.start_byte then first = m.imp end
		end
		-- (not one that shares its line with the if: `if ok: import torch`)
		local lead = first and text:sub(first.start_byte - first.col + 2, first.start_byte):match("^[ \t]*$")
		if lead then st, anchor, indent = first, first, lead end
	end
	-- without an import of torch to go after (a package's __init__.py, a script that hands
	-- the device to a package that imports torch), before the first statement after the
	-- module's docstring and __future__ imports
	if not st then
		local sts = ctx.query(path, TOP_STATEMENTS) or {}
		table.sort(sts, function(a, b) return a.st.start_byte < b.st.start_byte end)
		local first_code = true
		for _i, m in ipairs(sts) do
			local n = m.st
			if n.type ~= "comment" then
				local doc = first_code and n.type == "expression_statement" and n.text:match("^[rRuUbBfF]*[\"']")
				first_code = false
				if n.type ~= "future_import_statement" and not doc then
					st = n
					break
				end
			end
		end
		local first = text:find("\n", 1, true)
		eol = (first and text:sub(first - 1, first - 1) == "\r") and "\r\n" or "\n"
		if st then
			at, suffix = st.start_byte, eol
		else
			at = #text
			prefix = (#text > 0 and text:sub(-1) ~= "\n") and eol or ""
		end
	elseif anchor then
		local nl = text:find("\n", st.end_byte + 1, true)
		if nl then
			at = nl
			eol = text:sub(nl - 1, nl - 1) == "\r" and "\r\n" or "\n"
		else
			at = #text
			local first = text:find("\n", 1, true)
			eol = (first and text:sub(first - 1, first - 1) == "\r") and "\r\n" or "\n"
			prefix = eol
		end
	else
		at = st.start_byte
		local nl = text:find("\n", st.start_byte + 1, true)
		eol = (nl and text:sub(nl - 1, nl - 1) == "\r") and "\r\n" or "\n"
	end
	local body = indent .. table.concat(lines, eol .. indent)
	local ins = prefix .. body .. eol .. suffix
	if anchor and st == anchor and not text:find("\n", st.end_byte + 1, true) then
		ins = prefix .. body
	end
	local site = {
		file = path, line = 1, col = 1, end_line = 1, end_col = 1,
		key = transfer and "transfer_to_npu" or "torch_npu",
		edits = { { start_byte = at, end_byte = at, text = ins } },
	}
	if st then
		site.line, site.col, site.end_line, site.end_col = st.line, st.col, st.line, st.col + #(st.text:match("^[^\n]*"))
	end
	return site
end

-- Folders named like this hold the project's own tests, examples and tools, not the
-- package it ships.
local NOT_SHIPPED = { tests = true, test = true, testing = true, examples = true, example = true, docs = true,
	doc = true, benchmarks = true, benchmark = true, scripts = true, tools = true }

local function dirname(p) return p:match("^(.*)/[^/]*$") or "" end

-- Whether a file builds the project (project.build_script).
local build_script = project.build_script
cuda.build_script = build_script

-- Whether a packaging file declares something to install (a setup.py build script always does).
local function packaging(ctx, path)
	local base = path:match("[^/]*$")
	if base == "setup.py" then return build_script(ctx, path) end
	local text = ctx.read(path) or ""
	if base == "pyproject.toml" then
		return text:find("%[project%]") or text:find("%[tool%.poetry%]") or text:find("%[build%-system%]")
	end
	return base == "setup.cfg" and (text:find("%[metadata%]") or text:find("%[options%]"))
end

-- The packages the project ships for others to import (a library): the outermost
-- packages (folders with __init__.py) beside a setup.py, setup.cfg or pyproject.toml that
-- declares an install, or in its src/ folder (then only those), except folders of tests,
-- examples, docs and tools. {list = {{dir=, init=}...}, of = function(path) -> package}.
-- Worked out once per run.
local library_of = setmetatable({}, { __mode = "k" })
function cuda.library(ctx)
	local lib = library_of[ctx]
	if lib then return lib end
	local roots = {}
	for _i, pattern in ipairs({ "setup%.py$", "setup%.cfg$", "pyproject%.toml$" }) do
		for _j, p in ipairs(ctx.files(pattern)) do
			local base = p:match("[^/]*$")
			if (base == "setup.py" or base == "setup.cfg" or base == "pyproject.toml") and packaging(ctx, p) then
				roots[dirname(p)] = true
			end
		end
	end
	local inits, list = {}, {}
	for _i, p in ipairs(ctx.files("__init__%.py$")) do
		if p:match("[^/]*$") == "__init__.py" then inits[dirname(p)] = p end
	end
	for root in pairs(roots) do
		local found = {}
		for _i, parent in ipairs({ root == "" and "src" or root .. "/src", root }) do
			for dir, init in pairs(inits) do
				local name = dir:match("[^/]*$")
				if dirname(dir) == parent and dir ~= parent and not NOT_SHIPPED[name]
					and name:match("^[%a_][%w_]*$") then
					found[#found + 1] = { dir = dir, init = init }
				end
			end
			if #found > 0 then break end
		end
		for _i, f in ipairs(found) do list[#list + 1] = f end
	end
	table.sort(list, function(a, b) return a.dir < b.dir end)
	lib = { list = list }
	function lib.of(path)
		for _i, pkg in ipairs(list) do
			if path:sub(1, #pkg.dir + 1) == pkg.dir .. "/" then return pkg end
		end
		return nil
	end
	library_of[ctx] = lib
	return lib
end

---------------------------------------------------------------------------------------
-- Code that must stay as it is
--
-- A rewrite to the NPU is right where the code picks torch's device for the one
-- accelerator it was written for. In these places it would break working code, so
-- scene(ctx, path, parts...) finds them once per file, each part when first needed
-- (plain text checks first: most files cost nothing), and settle(ctx, path, sites)
-- applies them to a detector's sites:
--  * A table keyed by device type ({"cuda": torch.cuda.empty_cache, "cpu": None}): its
--    CUDA entry stays, and device_strings reports the table with an edit adding an "npu"
--    entry beside it (the value in its NPU form; in a module of a library, one that reads
--    torch.npu only when torch has it, so the table still builds without torch_npu) or,
--    when ferry knows no NPU form of the value, for a person. The sites inside the CUDA
--    entry are dropped; a table that already has "npu" stays as it is.
--  * Code that already chooses the NPU (see npu_choices): the clauses of an if/elif/else
--    beside one whose condition names the NPU, 'npu' if ... else 'cuda', an and/or or a
--    list naming both, and in a function that tests for the NPU the ifs testing whether
--    CUDA is there. Another accelerator's code: a class or file for the CPU, HPU, MPS,
--    XPU ... accelerator (DeepSpeed's cpu_accelerator.py), and the CUDA one when the
--    project has an NPU one. Sites there are dropped: rewriting them would only add a
--    second, dead NPU branch and lose CUDA. Each rule needs the NPU side and the CUDA side
--    together, so migrated code, re-checked, does not hide what is left for a person.
--  * A CUDA test that chooses something other than torch's device: ONNX Runtime's
--    execution provider, the PaddlePaddle package or device, ROCm builds of torch
--    (`torch.version.hip ... and torch.cuda.is_available()`), a CUDA extension build (the
--    markers of cuda_api_map.json "other_choices"), anything in setup.py. Sites there
--    keep no edit and say why, for a person.
--  * A test skip condition testing CUDA moves with the test it guards (skip_regions): both
--    are migrated, or, where the test keeps code on CUDA (a CUDA-only kernel it reaches,
--    or a site kept for any reason here), both stay and say why.
--  * A CUDA test whose branch runs code that exists for NVIDIA GPUs only: a name imported
--    from a library gpu_libraries.json marks `cuda_only` (Triton, flash-attn, apex ...),
--    from a module of the project that imports one, or a function of the file that does
--    (`if x.is_cuda: return dtw_cuda(x)`), or a condition naming such a library
--    (`x.is_cuda and HAS_TRITON`). The project's own CUDA extensions count as such
--    libraries (`from detectron2 import _C`, built by a setup.py CUDAExtension). CUDA's
--    branch is the else of `if not x.is_cuda:`, and the rest of the function after a
--    guard `if not x.is_cuda: raise ...` (or `assert x.is_cuda`). It is a fast path: on the NPU the code after or
--    beside it runs, and rewriting the test would send the NPU into a kernel it cannot
--    run. Its sites keep no edit and say which kernel the branch reaches.
--  * A call to a torch.cuda API whose NPU form returns what the caller cannot take as it is
--    (cuda_api_map.json `manual`: get_device_capability() is None there; or a field the
--    NPU form does not fill, get_device_properties(d).multi_processor_count), and every site
--    of the outermost test or comparison around it: rewriting only part of
--    `torch.cuda.is_available() and torch.cuda.get_device_capability() >= (8, 0)` fails
--    on the NPU host, where the original fell back. Its sites keep no edit.
--  * A function that chooses among accelerators, CUDA being one of several its conditions
--    test (`if torch.cuda.is_available(): ... if is_xpu_available(): ...`, `kind == "hpu"`,
--    MULTI_MLU): a library's dispatch. Rewriting its CUDA branch would take CUDA out of
--    the choice and leave no NPU branch of its own; its sites keep no edit, and say that
--    an NPU branch belongs beside the CUDA one. MPS and the CPU do not count: a script
--    choosing between CUDA and a Mac is migrated as usual. A function that tests for the
--    NPU too has its branch already, and the rules above apply.

local NPU_WORD = "%f[%a][nN][pP][uU]" -- "npu", "torch_npu", "NPU_Accelerator"; not "input"

-- Accelerators a class or file can be written for (CPU_Accelerator, hpu_accelerator.py).
local ACCELERATORS = { cpu = true, cuda = true, gpu = true, npu = true, mps = true, xpu = true, hpu = true,
	mlu = true, sdaa = true, tpu = true, xla = true, ipu = true, musa = true, neuron = true }
local SKIP_WORDS = { "skip", "skipIf", "skipUnless", "skipif", "skipTest", "SkipTest" }

local TABLE_KEYS = [[
(dictionary "{" @open (pair key: (_) @key))
]]
local CUDA_PAIRS = [[
(pair key: (string) @key (#match? @key "^[rRuU]?(\"|')cuda(\"|')$") value: (_) @value) @pair
]]
-- If/elif/else chains (each clause with its condition), conditional expressions,
-- and/or expressions and lists, guarded imports of torch_npu, and the functions that
-- can hold a choice (those naming the NPU or testing for CUDA: the innermost function
-- around such a test is always one of them).
local NPU_CHOICES = [[
(if_statement condition: (_) @c (#match? @c "(^|[^A-Za-z])[nN][pP][uU]|[cC][uU][dD][aA]")) @if
(if_statement alternative: (elif_clause condition: (_) @c) @clause (#match? @if "(^|[^A-Za-z])[nN][pP][uU]|[cC][uU][dD][aA]")) @if
(if_statement alternative: (else_clause) @clause (#match? @if "(^|[^A-Za-z])[nN][pP][uU]")) @if
((conditional_expression) @expr (#match? @expr "[cC][uU][dD][aA]"))
((boolean_operator) @bool (#match? @bool "(^|[^A-Za-z])[nN][pP][uU]"))
(list (string) @s (#match? @s "npu")) @seq
(tuple (string) @s (#match? @s "npu")) @seq
(set (string) @s (#match? @s "npu")) @seq
((function_definition) @fn (#match? @fn "(^|[^A-Za-z])[nN][pP][uU]|cuda[ \t]*\\.[ \t]*(is_available|device_count|is_initialized)|is_cuda_available"))
(try_statement body: (block (import_statement) @guard (#match? @guard "torch_npu")))
(try_statement body: (block (import_from_statement) @guard (#match? @guard "torch_npu")))
(assignment left: [(identifier) (attribute)] right: (_) @pv (#match? @pv "cuda|(^|[^A-Za-z])[nN][pP][uU]")) @passign
(try_statement body: (block [(import_statement) (import_from_statement)] @npu_import
  (#match? @npu_import "torch_npu|torch\\.npu|import npu")) (except_clause) @fallback)
]]
-- Conditions that test CUDA, and the arguments of test skips.
local OTHER_CHOICES = [[
((string (interpolation expression: (conditional_expression) @expr)) @fstr (#match? @expr "[cC][uU][dD][aA]"))
(if_statement condition: (_) @c (#match? @c "[cC][uU][dD][aA]")) @if
((conditional_expression) @expr (#match? @expr "[cC][uU][dD][aA]"))
((boolean_operator) @expr (#match? @expr "[cC][uU][dD][aA]"))
(call function: (attribute attribute: (identifier) @f (#any-of? @f "skip" "skipIf" "skipUnless" "skipif" "skipTest" "SkipTest")) arguments: (argument_list) @args)
(call function: (identifier) @f (#any-of? @f "skip" "skipIf" "skipUnless" "skipif" "skipTest" "SkipTest") arguments: (argument_list) @args)
]]
-- The conditions a function can choose an accelerator by, and the functions.
local DISPATCH = [[
(if_statement condition: (_) @c)
(elif_clause condition: (_) @c)
(conditional_expression) @c
(function_definition) @fn
]]
-- Accelerators other than CUDA that a dispatch chooses among (the words of a condition:
-- is_xpu_available, torch.mlu, "hpu", DistributedType.MULTI_XLA); not MPS nor the CPU.
local DISPATCH_OTHERS = { xpu = true, mlu = true, hpu = true, xla = true, tpu = true, musa = true,
	sdaa = true, neuron = true, ipu = true }
local DISPATCH_WORDS = { "xpu", "XPU", "mlu", "MLU", "hpu", "HPU", "xla", "XLA", "tpu", "TPU", "musa", "MUSA",
	"sdaa", "SDAA", "neuron", "ipu", "IPU" }
local ACCEL_CLASSES = [[
(class_definition name: (identifier) @name (#match? @name "[Aa]ccelerator")) @class
]]

local function covering(ranges, b)
	for _i, r in ipairs(ranges) do
		if b >= r.s and b < r.e then return r end
	end
	return nil
end

local function range(node, extra)
	local r = extra or {}
	r.s, r.e = node.start_byte, node.end_byte
	return r
end

-- The accelerator a class or module name is for ("CPU_Accelerator", "hpu_accelerator"
-- -> "cpu", "hpu"), or nil.
local function accelerator_of(name)
	local dev = name:lower():gsub("_", ""):match("^(%a+)accelerator$")
	return dev and ACCELERATORS[dev] and dev or nil
end

-- Whether the project has an NPU accelerator module (npu_accelerator.py), once per run.
local npu_accel_of = setmetatable({}, { __mode = "k" })
local function project_npu_accelerator(ctx)
	local v = npu_accel_of[ctx]
	if v == nil then
		v = #ctx.files("npu_accelerator%.py$") > 0
		npu_accel_of[ctx] = v
	end
	return v
end

-- The edits writing one torch.cuda reference (from refs.dotted) in its NPU form when the
-- code spells torch out (torch.cuda, torch.cuda.X, th.cuda.X with th bound to torch) and
-- the table maps it to a torch.npu name; nil otherwise.
local function npu_form(r, index, map)
	local head = r.text:match("^([%a_][%w_]*)%.cuda")
	if not head or not (py.expand(map, head) == "torch" or (head == "torch" and not map.torch)) then return nil end
	if r.resolved == "torch.cuda" then
		if r.node.text ~= head .. ".cuda" then return nil end
		return { refs.edit(r.node.start_byte + #head + 1, 4, "npu") }
	end
	if r.node.text:sub(1, #head + 6) ~= head .. ".cuda." then return nil end
	local e = refs.lookup(index, r.resolved)
	if not e or e.status == "unsupported" then return nil end
	local target, plain = npu_target(e, r.resolved)
	if plain then return { refs.edit(r.node.start_byte + #head + 1, 4, "npu") } end
	local t = target and target:gsub("^torch_npu%.npu%.", "torch.npu.")
	if t and (e.status == "supported" or e.rename) and r.node.text == r.text and t:sub(1, 10) == "torch.npu." then
		return { refs.edit(r.node.start_byte + #head, #r.text - #head, t:sub(6)) }
	end
	return nil
end

-- The NPU form of a table value (the text of value with torch.cuda names, device
-- strings and backend names rewritten), or nil when something in it stays CUDA; and the
-- file's name for torch when the NPU form refers to torch.npu.
local function npu_value(ctx, path, map, index, value)
	local s, e = value.start_byte, value.end_byte
	local edits, head = {}, nil
	for _i, r in ipairs(refs.dotted(ctx, path, map)) do
		local b = r.node.start_byte
		if b >= s and b < e and (r.resolved == "torch.cuda" or r.resolved:sub(1, 11) == "torch.cuda.") then
			local ed = npu_form(r, index, map)
			if not ed then return nil end
			for _j, x in ipairs(ed) do edits[#edits + 1] = x end
			head = head or r.text:match("^[%a_][%w_]*")
		end
	end
	for _i, st in ipairs(refs.strings(ctx, path)) do
		local b = st.node.start_byte
		if b >= s and b < e then
			local inner, at = refs.string_inner(st.node)
			if cuda.device_string(inner) then
				edits[#edits + 1] = refs.edit(at, 4, "npu")
			elseif backend_string(inner) then
				for a in inner:gmatch("()nccl") do edits[#edits + 1] = refs.edit(at + a - 1, 4, "hccl") end
				for a in inner:gmatch("()cuda") do edits[#edits + 1] = refs.edit(at + a - 1, 4, "npu") end
			end
		end
	end
	table.sort(edits, function(x, y) return x.start_byte < y.start_byte end)
	local parts, pos = {}, s
	local text = value.text
	for _i, ed in ipairs(edits) do
		parts[#parts + 1] = text:sub(pos - s + 1, ed.start_byte - s)
		parts[#parts + 1] = ed.text
		pos = ed.end_byte
	end
	parts[#parts + 1] = text:sub(pos - s + 1)
	local out = table.concat(parts)
	local low = out:lower()
	if low:find("cuda", 1, true) or low:find("nccl", 1, true) then return nil end
	return out, head
end

-- Values that need no parentheses before ` if ... else None`.
local PRIMARY = { attribute = true, identifier = true, call = true, subscript = true, dictionary = true,
	list = true, tuple = true, set = true, string = true, integer = true, float = true, ["true"] = true,
	["false"] = true, none = true, parenthesized_expression = true }

-- The edits adding `entry` beside the pair: on a line of its own when the pair starts
-- its line (after the pair's comma and anything else on that line), else after it.
local function entry_edits(text, pair, entry)
	local line_start = pair.start_byte
	while line_start > 0 and text:sub(line_start, line_start) ~= "\n" do line_start = line_start - 1 end
	local indent = text:sub(line_start + 1, pair.start_byte)
	local own_line = indent:match("^[ \t]*$") ~= nil
	local i = pair.end_byte + 1
	while text:sub(i, i):match("^[ \t]$") do i = i + 1 end
	local comma = text:sub(i, i) == "," and i or nil
	if not own_line then
		if comma then return { refs.edit(comma, 0, " " .. entry .. ",") } end
		return { refs.edit(pair.end_byte, 0, ", " .. entry) }
	end
	local nl = text:find("\n", pair.end_byte + 1, true) or (#text + 1)
	local eol_at = nl - 1
	if text:sub(nl - 1, nl - 1) == "\r" then eol_at = nl - 2 end
	local eol = text:sub(eol_at + 1, nl)
	if eol == "" then eol = "\n" end
	if comma then return { refs.edit(eol_at, 0, eol .. indent .. entry .. ",") } end
	if eol_at == pair.end_byte then return { refs.edit(eol_at, 0, "," .. eol .. indent .. entry) } end
	return { refs.edit(pair.end_byte, 0, ","), refs.edit(eol_at, 0, eol .. indent .. entry) }
end

-- Tables keyed by device type with a "cuda" key: adds to sc.keep (tables that have "npu"),
-- sc.owned (the CUDA value of the others) and sc.tables (key start -> the site adding
-- the "npu" entry).
local function device_tables(ctx, path, text, sc)
	local pairs_ = ctx.query(path, CUDA_PAIRS) or {}
	if #pairs_ == 0 then return end
	local dict_of, keys = {}, {}
	for _i, m in ipairs(ctx.query(path, TABLE_KEYS) or {}) do
		local o = m.open.start_byte
		dict_of[m.key.start_byte] = o
		keys[o] = keys[o] or {}
		table.insert(keys[o], m.key)
	end
	local map, index
	for _i, m in ipairs(pairs_) do
		local ks = keys[dict_of[m.key.start_byte] or -1] or {}
		local device, has_npu = #ks >= 2, false
		for _j, k in ipairs(ks) do
			local inner = k.type == "string" and refs.string_inner(k) or nil
			if not inner or not DEVICE_KEYS[inner] then device = false end
			if inner == "npu" then has_npu = true end
		end
		if device and has_npu then
			sc.keep[#sc.keep + 1] = range(m.pair)
		elseif device then
			sc.owned[#sc.owned + 1] = range(m.value)
			map = map or refs.aliases(ctx, path)
			index = index or cuda.api_index(ctx)
			local q = m.key.text:match("^[rRuU]?(['\"])") or '"'
			local value, head = npu_value(ctx, path, map, index, m.value)
			if value and head and cuda.library(ctx).of(path) then
				-- a module of a library is imported where torch_npu is not installed too:
				-- the entry must not fail to build there, so torch.npu is only read when
				-- torch has it
				if not PRIMARY[m.value.type] then value = "(" .. value .. ")" end
				value = value .. " if hasattr(" .. head .. ", \"npu\") else None"
			end
			local sep = text:sub(m.key.end_byte + 1, m.value.start_byte)
			local site = {
				file = path, node = m.key,
				message = _("This table is keyed by device type and maps {key}, but has no 'npu' entry: looked up with an NPU device it fails or falls back.",
					{ key = m.key.text }),
			}
			if value then
				local entry = q .. "npu" .. q .. sep .. value
				site.suggestion = _("Add `{entry}` beside the CUDA entry, which stays so that the table keeps working on GPUs; check that the value holds on the NPU.",
					{ entry = entry })
				site.edits = entry_edits(text, m.pair, entry)
			else
				local v = m.value.text:match("^[^\n]*")
				site.suggestion = _("Add an 'npu' entry beside the CUDA entry, with the NPU form of `{value}`; keep the CUDA entry for GPUs.",
					{ value = v })
				site.fix_message = _("This table is keyed by device type and maps {key} to `{value}`, for which ferry knows no NPU form.",
					{ key = m.key.text, value = v })
			end
			sc.tables[m.key.start_byte] = site
		end
	end
end

-- The innermost function around byte b (its start byte), or 0 at module level.
local function scope_at(fns, b)
	local best, size = 0, math.huge
	for _i, f in ipairs(fns) do
		if b >= f.s and b < f.e and f.e - f.s < size then best, size = f.s, f.e - f.s end
	end
	return best
end

-- Code that already chooses the NPU (see above): adds to sc.keep.
-- Whether a condition tests whether CUDA is there (torch.cuda.is_available(),
-- torch.cuda.device_count() ...): what a branch for CUDA beside one for the NPU tests.
-- Ferry rewrites such tests everywhere else, so one left in migrated code is one of these.
local function cuda_probe(text)
	return text:find("cuda%s*%.%s*is_available") or text:find("cuda%s*%.%s*device_count")
		or text:find("cuda%s*%.%s*is_initialized") or text:find("is_cuda_available")
end

-- Whether an expression asks whether something is the NPU (`torch.npu.is_available()`,
-- `device.type == 'npu'`, `x.is_npu`).
local function npu_test(text)
	return text:find("is_npu", 1, true) ~= nil or text:find("npu%s*%.%s*is_available") ~= nil
		or text:find("[=!]=%s*[\"']npu") ~= nil or text:find("[\"']npu[\"']%s*[=!]=") ~= nil
end

-- Code that already chooses the NPU: adds to sc.keep.
--  * an if/elif/else chain with a clause whose condition names the NPU: its other clauses
--    (the CUDA or CPU alternatives) stay; the NPU clause itself is open to the rewrites;
--  * a conditional expression naming both the NPU and CUDA, an and/or naming the NPU
--    and testing for CUDA, a list naming both device types;
--  * in a function (or at module level) that tests for the NPU (a condition naming it,
--    or a guarded import of torch_npu), every if and conditional expression that tests
--    for CUDA, and every CUDA test it stores under a name;
--  * a CUDA test stored under a name beside an NPU test stored under the same name with
--    npu for cuda (`self.is_cuda = ...`, `self.is_npu = ...`), and an if testing CUDA
--    beside an if in the same scope whose condition is the same with npu for cuda.
local function npu_choices(ctx, path, sc)
	local chains, exprs, fns, guards, stored, paired, npu_names = {}, {}, {}, {}, {}, {}, {}
	for _i, m in ipairs(ctx.query(path, NPU_CHOICES) or {}) do
		local node = m["if"]
		if node then
			local ch = chains[node.start_byte] or range(node, { alts = {} })
			chains[node.start_byte] = ch
			if m.clause then
				ch.alts[#ch.alts + 1] = range(m.clause, {
					npu = m.c and m.c.text:find(NPU_WORD) ~= nil, probe = m.c and cuda_probe(m.c.text) })
			else
				ch.npu = m.c.text:find(NPU_WORD) ~= nil
				ch.probe = cuda_probe(m.c.text)
				ch.cond = m.c.text
			end
		elseif m.expr then
			exprs[#exprs + 1] = range(m.expr, { npu = m.expr.text:find(NPU_WORD) ~= nil, probe = cuda_probe(m.expr.text) })
		elseif m.bool then
			-- an and/or naming the NPU that also tests for CUDA (FastChat's `(device == "cuda"
			-- and ...) or device in ("mps", "xpu", "npu")`) already runs on both
			if cuda_probe(m.bool.text) or is_cuda_test(m.bool.text) then sc.keep[#sc.keep + 1] = range(m.bool) end
		elseif m.seq then
			local inner = refs.string_inner(m.s)
			if (inner == "npu" or inner:match("^npu:")) and m.seq.text:find("[\"']cuda") then
				sc.keep[#sc.keep + 1] = range(m.seq)
			end
		elseif m.fn then
			fns[#fns + 1] = range(m.fn)
		elseif m.guard then
			guards[#guards + 1] = m.guard.start_byte
		elseif m.passign then
			local name = m.passign.text:match("^[%w_.]+")
			if cuda_probe(m.pv.text) then stored[#stored + 1] = range(m.passign) end
			if name and name:find("cuda") and (cuda_probe(m.pv.text) or is_cuda_test(m.pv.text)) then
				paired[#paired + 1] = range(m.passign, { name = name })
			elseif name and name:find("npu") and npu_test(m.pv.text) then
				npu_names[name] = npu_names[name] or {}
				table.insert(npu_names[name], m.passign.start_byte)
			end
		end
		-- the CUDA import a package others import falls back to where torch_npu is not
		-- installed (`try: from torch_npu.npu.amp import X` / `except ImportError: ...`)
		if m.fallback then sc.keep[#sc.keep + 1] = range(m.fallback) end
	end
	local chooses = {} -- scopes that test for the NPU
	for _i, g in ipairs(guards) do chooses[scope_at(fns, g)] = true end
	for _b, ch in pairs(chains) do
		table.sort(ch.alts, function(x, y) return x.s < y.s end)
		local npu = ch.npu
		for _i, a in ipairs(ch.alts) do npu = npu or a.npu end
		if npu then
			chooses[scope_at(fns, ch.s)] = true
			if not ch.npu then sc.keep[#sc.keep + 1] = { s = ch.s, e = ch.alts[1] and ch.alts[1].s or ch.e } end
			for _i, a in ipairs(ch.alts) do
				if not a.npu then sc.keep[#sc.keep + 1] = a end
			end
		end
	end
	for _b, ch in pairs(chains) do
		local probe = ch.probe
		for _i, a in ipairs(ch.alts) do probe = probe or a.probe end
		if probe and chooses[scope_at(fns, ch.s)] then sc.keep[#sc.keep + 1] = ch end
	end
	for _i, x in ipairs(exprs) do
		if x.npu or (x.probe and chooses[scope_at(fns, x.s)]) then
			sc.keep[#sc.keep + 1] = x
		end
	end
	-- a CUDA test stored under a name in such a function (accelerate's env command:
	-- `pt_cuda_available = torch.cuda.is_available()`, then `elif pt_npu_available:`) is
	-- its CUDA branch's test, like an if testing CUDA there
	for _i, x in ipairs(stored) do
		if chooses[scope_at(fns, x.s)] then sc.keep[#sc.keep + 1] = x end
	end
	-- an if testing CUDA beside an if testing the NPU the same way in the same scope
	-- (timm's `if device_type == 'cuda': assert torch.cuda.is_available()` then `if
	-- device_type == 'npu': ...`) is CUDA's branch of that choice, like an elif would be
	local conds = {}
	for _b, ch in pairs(chains) do
		if ch.cond and ch.npu then conds[scope_at(fns, ch.s) .. ":" .. ch.cond] = true end
	end
	for _b, ch in pairs(chains) do
		if ch.cond and not ch.npu and ch.cond:find("cuda", 1, true)
			and conds[scope_at(fns, ch.s) .. ":" .. ch.cond:gsub("cuda", "npu")] then
			sc.keep[#sc.keep + 1] = ch
		end
	end
	-- a CUDA test stored beside an NPU test of the same name in the same scope (timm's
	-- prefetcher: `self.is_cuda = device.type == 'cuda' and ...`, `self.is_npu = ...`,
	-- then `if self.is_cuda: ... elif self.is_npu:`) is CUDA's own: rewritten, both names
	-- would hold the NPU test and the CUDA branch would run on the NPU
	for _i, x in ipairs(paired) do
		local scope = scope_at(fns, x.s)
		for _j, b in ipairs(npu_names[(x.name:gsub("cuda", "npu"))] or {}) do
			if scope_at(fns, b) == scope then
				sc.keep[#sc.keep + 1] = x
				break
			end
		end
	end
end

-- Classes and files for another accelerator: adds to sc.keep.
local function accelerators(ctx, path, text, sc)
	local base = path:match("([^/]*)%.py$") or ""
	local own = accelerator_of(base)
	if own and (own ~= "cuda" and own ~= "gpu" or project_npu_accelerator(ctx)) then
		sc.keep[#sc.keep + 1] = { s = 0, e = #text + 1 }
		return
	end
	if not text:find("class%s+[%w_]*[Aa]ccelerator") then return end
	local classes, npu_here = {}, false
	for _i, m in ipairs(ctx.query(path, ACCEL_CLASSES) or {}) do
		local dev = accelerator_of(m.name.text)
		if dev then
			classes[#classes + 1] = range(m.class, { dev = dev })
			if dev == "npu" then npu_here = true end
		end
	end
	for _i, c in ipairs(classes) do
		if (c.dev ~= "cuda" and c.dev ~= "gpu") or npu_here or project_npu_accelerator(ctx) then
			sc.keep[#sc.keep + 1] = c
		end
	end
end

-- Whether text holds word where the byte before it (if any) is not of the Lua class
-- `before` ("[%w_]") and, when `after` is given, the byte after it is not of that class
-- either. Plain searches and a look at the neighbouring bytes: a frontier pattern tried
-- at every byte of a whole file was a third of the assessment's time on large projects.
local function has_bounded(text, word, before, after)
	local i = text:find(word, 1, true)
	while i do
		local j = i + #word
		if (i == 1 or not text:sub(i - 1, i - 1):find(before))
			and (not after or j > #text or not text:sub(j, j):find(after)) then
			return true
		end
		i = text:find(word, i + 1, true)
	end
	return false
end

-- A word of text as code would write it (not part of a longer name).
local function has_word(text, word)
	if not word:find("^[%w_]") or not word:find("[%w_]$") then return false end -- as the frontiers would
	return has_bounded(text, word, "[%w_]", "[%w_]")
end

-- What a region of code chooses when it is not torch's device: {kind = "skip"} or
-- {kind = "marker", entry = other_choices entry}, or nil.
local function other_choice(text, choices)
	for _i, w in ipairs(SKIP_WORDS) do
		if has_word(text, w) then return { kind = "skip" } end
	end
	for _i, c in ipairs(choices) do
		if has_word(text, c.marker) then return { kind = "marker", entry = c } end
	end
	return nil
end

-- CUDA tests that choose something other than torch's device: adds to sc.other.
local function other_choices(ctx, path, text, sc)
	if build_script(ctx, path) then
		sc.other[#sc.other + 1] = { s = 0, e = #text + 1, kind = "build" }
		return
	end
	local choices = ctx.data("cuda_api_map").other_choices or {}
	local any = text:find("kip", 1, true) and text:find("%f[%w_][sS]kip%a*%s*%(") ~= nil -- skip(, skipIf(, SkipTest( ...
	for _i, c in ipairs(choices) do
		if not any and text:find(c.marker, 1, true) then any = true end
	end
	if not any then return end
	local read = {} -- name -> what, for the names such a choice reads
	for _i, m in ipairs(ctx.query(path, OTHER_CHOICES) or {}) do
		if m.args then
			sc.other[#sc.other + 1] = range(m.args, { kind = "skip" })
			if has_word(m.args.text:lower(), "cuda") then
				sc.other[#sc.other].code = (m.f.text .. m.args.text):match("^[^\n]*")
				sc.skips[#sc.skips + 1] = sc.other[#sc.other]
			end
		else
			-- a choice inside an f-string chooses what the whole string names
			-- (f"tensorflow{'' if torch.cuda.is_available() else '-cpu'}")
			local node = m["if"] or m.expr
			local what = other_choice((m.fstr or node).text, choices)
			if what then
				sc.other[#sc.other + 1] = range(node, what)
				if what.kind == "skip" and m["if"] then
					sc.other[#sc.other].code = m["if"].text:match("^[^\n]*")
					sc.skips[#sc.skips + 1] = sc.other[#sc.other]
				end
				if what.kind == "marker" then
					for name in node.text:gmatch("[%a_][%w_]*") do read[name] = read[name] or what end
				end
			end
		end
	end
	-- a CUDA test stored in a name that such a choice reads (yolov5: `cuda =
	-- torch.cuda.is_available() and ...`, then `"onnxruntime-gpu" if cuda else ...`)
	if next(read) then
		for _i, m in ipairs(ctx.query(path, "(assignment left: (identifier) @l right: (_) @r)") or {}) do
			local what = read[m.l.text]
			if what and is_cuda_test(m.r.text) then sc.other[#sc.other + 1] = range(m.r, what) end
		end
	end
end

-- Lightning's accelerator chosen by a CUDA test (litgpt's `if torch.cuda.is_available():
-- accelerator = "cuda"`, a Trainer's `accelerator="gpu" if torch.cuda.is_available() else
-- "cpu"`) in a file that imports Lightning: Lightning has no NPU accelerator of its own
-- (gpu_libraries.json), so a rewritten test would pick its CUDA accelerator on the NPU
-- host. Adds to sc.other the if that assigns the accelerator and a value chosen by a CUDA
-- test; "cuda" itself given as the accelerator goes to sc.owned: adapt.lightning reports
-- it with Lightning's other GPU settings (and rewrites it where the project registers an
-- NPU accelerator), except inside such an if, which stays whole.
local LIGHTNING_CHOICES = [[
(if_statement condition: (_) @c) @if
(keyword_argument name: (identifier) @k (#eq? @k "accelerator") value: (_) @v)
(assignment left: (_) @l (#match? @l "accelerator$") right: (_) @v)
]]
local function lightning_choices(ctx, path, text, sc)
	if not (text:find("lightning", 1, true) and text:find("accelerator", 1, true)) then return end
	local imports = false
	for _i, imp in ipairs(py.imports(ctx, path) or {}) do
		local top = imp.module:match("^[%a_][%w_]*")
		if top == "lightning" or top == "pytorch_lightning" or top == "lightning_fabric" then imports = true end
	end
	if not imports then return end
	local entry
	for _i, e in ipairs(ctx.data("gpu_libraries").entries) do
		if e.name == "pytorch_lightning" then entry = e end
	end
	local function tests_cuda(t) return cuda_probe(t) or is_cuda_test(t) end
	for _i, m in ipairs(ctx.query(path, LIGHTNING_CHOICES) or {}) do
		local node = m["if"] or m.v
		if (m["if"] and tests_cuda(m.c.text) and m["if"].text:find("accelerator%s*=[^=]"))
			or (m.v and tests_cuda(m.v.text)) then
			sc.other[#sc.other + 1] = range(node, { kind = "lightning", entry = entry })
		elseif m.v and m.v.text:find("^[rRuU]?[\"']cuda[\"']$") then
			sc.owned[#sc.owned + 1] = range(node)
		end
	end
end

-- Functions whose name says they answer a question about CUDA (is_cuda_available,
-- has_cuda, use_cuda, cuda_is_available): their callers take a CUDA path on a yes, so a
-- test inside rewritten for the NPU would send the NPU host there. Adds to sc.other.
local CUDA_NAMED = "((function_definition name: (identifier) @n) @fn (#match? @n \"[cC][uU][dD][aA]\"))"
local function cuda_predicates(ctx, path, sc)
	for _i, m in ipairs(ctx.query(path, CUDA_NAMED) or {}) do
		local n = m.n.text:lower():gsub("^_+", "")
		if n:match("^is_.*cuda") or n:match("^has_.*cuda") or n:match("^can_.*cuda") or n:match("^use_cuda")
			or n:match("cuda_?is_?available") or n:match("cuda_?available") then
			sc.other[#sc.other + 1] = range(m.fn, { kind = "cuda_named", name = m.n.text })
		end
	end
end

-- CUDA-only code (see above). The libraries whose code runs on NVIDIA GPUs only, by
-- import name and, for a stable choice when a text names several, in the table's order;
-- once per run.
local cuda_only_libs, cuda_only_order
local function cuda_only(ctx)
	if not cuda_only_libs then
		cuda_only_libs, cuda_only_order = {}, {}
		for _i, e in ipairs(ctx.data("gpu_libraries").entries or {}) do
			if e.cuda_only then
				cuda_only_libs[e.name] = e
				cuda_only_order[#cuda_only_order + 1] = e
			end
		end
	end
	return cuda_only_libs, cuda_only_order
end

-- The project's own CUDA extensions, by their module name ("detectron2._C") and, for a
-- relative import, by its last part ("._C"): the first string of a call that builds one
-- in a setup.py, or the name= of cpp_extension.load / load_inline. In a setup.py that
-- names CUDAExtension, any call given sources (`extension("pkg._C", sources, ...)`, with
-- extension = CUDAExtension); in one that builds only CppExtension or Extension, a call
-- whose sources, within its next lines, name a .cu file (fairseq builds its CUDA binding
-- as a CppExtension). Once per run.
-- Each entry also says where the module is built: builder (the file building it), stem
-- (where the built module lands, without suffix: the builder's folder and the module's
-- name, as setup.py build_ext --inplace and cffi's relative_to place it; nil for one
-- cpp_extension.load builds at run time) and text (the builder's lines from the call on).
-- host_build is true when the builder builds the module without CUDA where CUDA is
-- missing (builds_without_cuda).
local extensions, extension_list

-- Whether a setup.py's lines choose the extension class by whether CUDA is there, with
-- the C++ one as the other choice: `extension = CppExtension`, then `extension =
-- CUDAExtension` under an if (detectron2 and other detection libraries), or `CUDAExtension
-- if ... else CppExtension`. Where CUDA is missing (the NPU host) it then builds the
-- module from its C++ sources alone: the module exists there, with CPU kernels only.
local function builds_without_cuda(lines)
	local cpp, cu = {}, {}
	for _i, line in ipairs(lines) do
		-- `extension = CppExtension`, `ext = cpp_extension.CUDAExtension`
		local name, class = line:match("^%s*([%a_][%w_]*)%s*=%s*[%w_.]-(C%a+Extension)%s*$")
		if class == "CppExtension" then cpp[name] = true elseif class == "CUDAExtension" then cu[name] = true end
		if (cpp[name] and cu[name]) or line:find("CUDAExtension%s+if%s.-else%s+[%w_.]-CppExtension")
			or line:find("CppExtension%s+if%s.-else%s+[%w_.]-CUDAExtension") then
			return true
		end
	end
	return false
end

local function project_extensions(ctx)
	if extensions then return extensions end
	extensions, extension_list = {}, {}
	local host_built = {}
	local function add(full, path, lines, j, loaded)
		local dir = path:match("^(.*)/[^/]*$")
		local rel = full:gsub("%.", "/")
		if host_built[path] == nil then host_built[path] = builds_without_cuda(lines) end
		local e = { name = full, builder = path, stem = not loaded and (dir and dir .. "/" .. rel or rel) or nil,
			text = table.concat(lines, "\n", j, math.min(#lines, j + 6)), host_build = host_built[path] }
		extensions[full], extensions["." .. full:match("[^.]*$")] = e, e
		extension_list[#extension_list + 1] = e
	end
	-- the text of the call's arguments after its first, up to six lines on
	local function cu_sources(lines, j, rest)
		local depth, text = 1, {}
		for k = j, math.min(#lines, j + 6) do
			local line = k == j and rest or lines[k]
			text[#text + 1] = line
			for ch in line:gmatch("[()]") do depth = depth + (ch == "(" and 1 or -1) end
			if depth <= 0 then break end
		end
		local all = table.concat(text, "\n")
		return all:find("%.cu[\"']") ~= nil
	end
	for _i, path in ipairs(ctx.files("%.py$")) do
		local is_setup = path:match("[^/]*$") == "setup.py"
		local cuda_ext = is_setup and ctx.find(path, "CUDAExtension")
		local setup = cuda_ext or (is_setup and ctx.find(path, "Extension"))
		if setup or ctx.find(path, "cpp_extension") then
			local lines = ctx.lines(path) or {}
			for j, line in ipairs(lines) do
				-- the call's first argument, on its line or alone on the next one
				local at = setup and line:find("(", 1, true)
				while at do
					local after, first = line:sub(at + 1), j
					if after:match("^%s*$") then after, first = lines[j + 1] or "", j + 1 end
					local full, rest = after:match("^%s*[\"']([%a_][%w_.]*)[\"']%s*,(.*)$")
					-- a path's parts (`os.path.join("vision", "csrc", "*.cu")`) name no module
					local callee = line:sub(1, at - 1):match("([%w_]+)%s*$") or ""
					if callee == "join" or callee == "glob" or callee == "Path" then full = nil end
					if full and cuda_ext then
						if rest:match("^%s*$") then rest = lines[first + 1] or "" end
						if rest:find("sources", 1, true) or rest:find(".cu", 1, true) then add(full, path, lines, first) end
					elseif full and cu_sources(lines, first, rest) then
						add(full, path, lines, first)
					end
					at = line:find("(", at + 1, true)
				end
				local named = line:match("Extension%s*%(%s*name%s*=%s*[\"']([%a_][%w_.]*)[\"']")
				local loaded = line:match("load[_%a]*%s*%(%s*name%s*=%s*[\"']([%a_][%w_.]*)[\"']")
				if named or loaded then add(named or loaded, path, lines, j, not named) end
			end
		end
		-- torch.utils.ffi (torch before 1.0): create_extension('_ext.name', ..., with_cuda=...)
		if ctx.find(path, "create_extension") and ctx.find(path, "with_cuda") then
			local lines = ctx.lines(path) or {}
			for j, line in ipairs(lines) do
				if line:find("create_extension%s*%(") then
					local after = line:match("create_extension%s*%((.*)$")
					if after:match("^%s*$") then after = lines[j + 1] or "" end
					local full = after:match("^%s*[\"']([%a_][%w_.]*)[\"']")
					if full then add(full, path, lines, j) end
				end
			end
		end
	end
	return extensions
end

-- The project's CUDA source an extension entry is built from: the .cu file its builder's
-- call names (relative to the builder's folder, else by file name), else, when the builder
-- builds CUDA code it does not name (CUDAExtension over a glob, cffi's with_cuda linking an
-- nvcc-built object), the first .cu file below the builder's folder; nil when there is none.
local function extension_source(ctx, e)
	local cus = ctx.files("%.cu$")
	local dir = e.builder:match("^(.*)/[^/]*$")
	local named = e.text:match("[\"']([^\"'\n]-%.cu)[\"']")
	if named then
		local rel = (dir and dir .. "/" or "") .. named:gsub("^%./", "")
		local base = named:match("[^/]*$")
		for _i, p in ipairs(cus) do
			if p == rel then return p end
		end
		for _i, p in ipairs(cus) do
			if p:match("[^/]*$") == base then return p end
		end
		return nil
	end
	if not (ctx.find(e.builder, "CUDAExtension") or ctx.find(e.builder, "with_cuda")) then return nil end
	for _i, p in ipairs(cus) do
		if not dir or p:sub(1, #dir + 1) == dir .. "/" then return p end
	end
	return nil
end

-- The project's own CUDA extensions that an import can name (built by a setup.py or cffi,
-- not loaded at run time by cpp_extension.load), in the order found: {name=, builder=,
-- stem= (where the built module lands, without suffix), source= (the .cu file it is built
-- from), host_build= (built without CUDA where CUDA is missing)}. Once per run.
local own_list
function cuda.own_extensions(ctx)
	if own_list then return own_list end
	project_extensions(ctx)
	own_list = {}
	for _i, e in ipairs(extension_list) do
		local source = e.stem and extension_source(ctx, e)
		if source then
			own_list[#own_list + 1] = { name = e.name, builder = e.builder, stem = e.stem, source = source,
				host_build = e.host_build }
		end
	end
	return own_list
end

-- The extension a CUDA source file at path belongs to when its builder also builds that
-- extension without CUDA (builds_without_cuda): the entry of the builder nearest above
-- the file whose folder holds it, or nil.
function cuda.host_built_extension(ctx, path)
	project_extensions(ctx)
	local best, depth
	for _i, e in ipairs(extension_list) do
		local dir = e.builder:match("^(.*)/[^/]*$")
		local d = dir and #dir or 0
		if e.stem and (not dir or path:sub(1, d + 1) == dir .. "/") and (not depth or d > depth) then
			best, depth = e, d
		end
	end
	return best and best.host_build and best or nil
end

-- The CUDA-only library a dotted module name belongs to ("flash_attn.bert_padding" ->
-- its entry), or the project's CUDA extension it names; nil otherwise.
local function cuda_only_lib(ctx, module)
	local libs = cuda_only(ctx)
	local name = module
	while name do
		if libs[name] then return libs[name] end
		name = name:match("^(.*)%.[^.]*$")
	end
	local exts = project_extensions(ctx)
	return exts[module] or (module:sub(1, 1) == "." and exts["." .. module:match("[^.]*$")]) or nil
end

-- The project file a module names from the file at path, or nil.
local module_file = project.module_file

-- The CUDA-only library a module name is, from the file at path: a common word (`import
-- cuda`) is the project's own module when the project has one. nil otherwise.
local function library_named(ctx, path, module)
	local lib = cuda_only_lib(ctx, module)
	if lib and not (lib.generic and module_file(ctx, path, module)) then return lib end
	return nil
end

-- The modules a file cannot be imported without, from its lines: the imports at its top
-- level, outside a try or in a try whose except raises (a module of Triton kernels that
-- stops with "triton is not installed"), and any import whose name the module's top level
-- uses (`@triton.jit` under `if HAVE_TRITON: import triton`). Other imports in a function,
-- an if, or a try that falls back are optional.
local function required_imports(ctx, path)
	local out, pending, in_try, in_except, raises = {}, {}, false, false, false
	local nested = {} -- name bound by an import below the top level -> module
	local function close_try()
		if raises then
			for _i, m in ipairs(pending) do out[#out + 1] = m end
		end
		pending, in_try, in_except, raises = {}, false, false, false
	end
	local function imported(line)
		local dots, name = line:match("^%s*from%s+(%.+)%s+import%s+([%w_]+)")
		if dots then return dots .. name end
		return line:match("^%s*import%s+([%w_.]+)") or line:match("^%s*from%s+([%w_.]+)%s+import")
	end
	for _i, line in ipairs(ctx.lines(path) or {}) do
		if line:match("^[^%s#]") then
			if line:match("^try%s*:") then
				close_try()
				in_try = true
			elseif line:match("^except") then
				in_except = in_try
			else
				close_try()
				local m = imported(line)
				out[#out + 1] = m
				if not m then
					for word in line:gmatch("([%a_][%w_]*)%s*%.") do
						if nested[word] then out[#out + 1] = nested[word] end
					end
				end
			end
		else
			local m = imported(line)
			if m then
				local bound = line:match("%sas%s+([%a_][%w_]*)%s*$") or m:match("^([%a_][%w_]*)")
				if bound then nested[bound] = m end
			end
			if in_try and not in_except then
				pending[#pending + 1] = m
			elseif in_except and line:match("^%s+raise%f[^%w_]") then
				raises = true
			end
		end
	end
	close_try()
	return out
end

-- The CUDA-only library a project module cannot be imported without, directly or through
-- the project's modules it requires (depth more levels), or false; cached per run.
local module_libs = {}
local function requires_cuda_only(ctx, path, depth)
	local key = path .. "#" .. depth
	if module_libs[key] ~= nil then return module_libs[key] end
	module_libs[key] = false -- an import cycle ends here
	local found = false
	for _i, m in ipairs(required_imports(ctx, path)) do
		found = library_named(ctx, path, m)
		if not found and depth > 0 and not m:match("^torch") then
			local file = module_file(ctx, path, m)
			if file and file ~= path then found = requires_cuda_only(ctx, file, depth - 1) end
		end
		if found then break end
	end
	module_libs[key] = found or false
	return module_libs[key]
end

-- The CUDA-only library an import reaches: itself, or a module of the project that cannot
-- be imported without one; nil otherwise.
local function import_reaches(ctx, path, imp)
	local lib = library_named(ctx, path, imp.full or imp.module) or library_named(ctx, path, imp.module)
	if lib then return lib end
	if imp.module:match("^torch") then return nil end
	for _i, module in ipairs({ imp.full or imp.module, imp.module }) do
		local file = module_file(ctx, path, module)
		if file and file ~= path then
			local found = requires_cuda_only(ctx, file, 2)
			if found then return found end
		end
	end
	return nil
end

local CUDA_TESTS = [[
(if_statement condition: (_) @c (#match? @c "[cC][uU][dD][aA]") consequence: (block) @body
  alternative: (else_clause body: (block) @alt)?) @if
(elif_clause condition: (_) @c (#match? @c "[cC][uU][dD][aA]") consequence: (block) @body) @if
(if_statement condition: (not_operator) @nc (#match? @nc "[cC][uU][dD][aA]") consequence: (block) @alt
  alternative: (else_clause body: (block) @else)) @nif
(if_statement condition: (not_operator) @gc (#match? @gc "[cC][uU][dD][aA]") consequence: (block [(raise_statement) (return_statement)] .) !alternative) @guard
((assert_statement) @assert (#match? @assert "[cC][uU][dD][aA]"))
(function_definition name: (identifier) @name body: (block) @fbody)
(class_definition name: (identifier) @cname) @class
(return_statement [(comparison_operator) (boolean_operator) (attribute) (call) (parenthesized_expression)] @test (#match? @test "[cC][uU][dD][aA]")) @ret
]]

-- Blocks that import a library for NVIDIA GPUs only themselves (yolov5's TensorRT branch:
-- `elif engine:` then `import tensorrt as trt`): the block is that library's code, and the
-- devices it names are CUDA's. Adds each innermost such block to sc.other.
local BLOCKS = [[
(if_statement consequence: (block) @b)
(elif_clause consequence: (block) @b)
(else_clause body: (block) @b)
(function_definition body: (block) @b)
]]
local LOCAL_IMPORTS = "(block [(import_statement) (import_from_statement)] @imp)"
local function nvidia_blocks(ctx, path, sc)
	local blocks
	for _i, m in ipairs(ctx.query(path, LOCAL_IMPORTS) or {}) do
		local module = m.imp.text:match("^import%s+([%w_%.]+)") or m.imp.text:match("^from%s+([%w_%.]+)")
		local lib = module and cuda_only_lib(ctx, module)
		if lib then
			blocks = blocks or ctx.query(path, BLOCKS) or {}
			local inner
			for _j, b in ipairs(blocks) do
				if b.b.start_byte <= m.imp.start_byte and b.b.end_byte >= m.imp.end_byte
					and (not inner or b.b.start_byte >= inner.start_byte) then inner = b.b end
			end
			if inner then sc.other[#sc.other + 1] = range(inner, { kind = "nvidia_block", lib = lib, via = module }) end
		end
	end
end

-- Ifs testing that the process group runs NCCL (`get_backend() == "nccl"`) whose branch
-- passes what only NCCL takes (nvidia_only.json "keyword" entries: barrier(device_ids=...)):
-- on the NPU the backend is HCCL and the other branch, the one it needs, runs; rewritten to
-- "hccl", the test would send HCCL into that call. Adds each such if to sc.other.
local NCCL_TESTS = [[
(if_statement condition: (comparison_operator) @c (#match? @c "==") consequence: (block) @body) @if
(elif_clause condition: (comparison_operator) @c (#match? @c "==") consequence: (block) @body) @if
]]
-- The "keyword" entries of nvidia_only.json: what only NCCL takes.
local function nccl_keywords(ctx)
	local out = {}
	for _i, e in ipairs(ctx.data("nvidia_only").entries or {}) do
		if e.kind == "keyword" and e.call then out[#out + 1] = e end
	end
	return out
end
-- The entry of what only NCCL takes that a branch's text passes (`barrier(` with
-- `device_ids=`), or nil.
local function nccl_keyword_in(text, entries)
	for _i, e in ipairs(entries) do
		local call = e.call:match("[^.]*$")
		if text:find("%f[%w_]" .. call .. "%s*%(") and text:find("%f[%w_]" .. e.keyword .. "%s*=") then return e end
	end
	return nil
end

-- Adds the ifs that test for NCCL around what only NCCL takes to sc.other (see above).
local function nccl_branches(ctx, path, sc)
	local entries
	for _i, m in ipairs(ctx.query(path, NCCL_TESTS) or {}) do
		entries = entries or nccl_keywords(ctx)
		local e = m.c.text:find("[\"']nccl[\"']") and nccl_keyword_in(m.body.text, entries)
		if e then
			sc.other[#sc.other + 1] = { s = m["if"].start_byte, e = m.body.end_byte, branch_s = m.body.start_byte,
				kind = "nccl_only", entry = e }
		end
	end
end

-- The nvidia_only.json entry a branch only NCCL takes passes, when byte b of the file is
-- in that branch (the body, not the test), else nil: on the NPU the branch never runs.
function cuda.nccl_only_branch(ctx, path, b)
	for _i, r in ipairs(scene(ctx, path, "other").other) do
		if r.kind == "nccl_only" and b >= r.branch_s and b < r.e then return r.entry end
	end
	return nil
end

-- Functions that launch a kernel of a library for NVIDIA GPUs only (unsloth's Triton
-- launchers: `_fg_kernel[grid](e, g, h, ...)`, the kernel a function of the file decorated
-- `@triton.jit`): the tensors such a function makes are the kernel's buffers, and their
-- device is CUDA's as long as the kernel's is. Adds each launcher to sc.other.
local KERNELS = [[(decorated_definition (decorator) @d definition: (function_definition name: (identifier) @n))]]
local LAUNCHES = [[
(call function: (subscript value: (identifier) @k)) @launch
(function_definition name: (identifier) @fn) @def
]]
local function kernel_launchers(ctx, path, sc)
	local bound = {}
	for _i, imp in ipairs(py.imports(ctx, path) or {}) do
		if imp.bound then bound[imp.bound] = imp.full or imp.module end
	end
	local kernels = {}
	for _i, m in ipairs(ctx.query(path, KERNELS) or {}) do
		local word = m.d.text:match("^@%s*([%a_][%w_]*)")
		local lib = word and bound[word] and cuda_only_lib(ctx, bound[word])
		if lib then kernels[m.n.text] = lib end
	end
	if not next(kernels) then return end
	local defs, launched = {}, {}
	for _i, m in ipairs(ctx.query(path, LAUNCHES) or {}) do
		if m.def then defs[#defs + 1] = m
		elseif kernels[m.k.text] then launched[#launched + 1] = m end
	end
	local seen = {}
	for _i, l in ipairs(launched) do
		local inner
		for _j, d in ipairs(defs) do
			if d.def.start_byte <= l.launch.start_byte and d.def.end_byte >= l.launch.end_byte
				and (not inner or d.def.start_byte >= inner.def.start_byte) then inner = d end
		end
		if inner and not seen[inner] then
			seen[inner] = true
			sc.other[#sc.other + 1] = range(inner.def, { kind = "launcher", lib = kernels[l.k.text], via = l.k.text,
				name = inner.fn.text })
		end
	end
end

-- Functions that run a tool or library for NVIDIA GPUs only (nvidia_only.json "tools":
-- litgpt's check_nvlink_connectivity runs `nvidia-smi topo -m`; a use of pynvml, nvcc):
-- an NVIDIA-only diagnostic or build step, whose CUDA calls rewritten one by one would
-- leave it running the tool on the NPU host. Adds each such function (the innermost one
-- holding the use) to sc.other, and its name to sc.tool_fns for kernel_paths, which then
-- also keeps a CUDA test whose branch calls it (the vendor check before the tool runs).
local TOOL_PLACES = [[
(function_definition name: (identifier) @name body: (block)) @fn
(string) @s
(identifier) @id
]]
-- The uses of those tools in a Python file, in source order: {node= (the string or the
-- module's name), tool= (its nvidia_only.json entry), fn= (the innermost function holding
-- it, a TOOL_PLACES match) or nil at module level}.
local function tool_uses(ctx, path, text)
	local tools = {}
	for _i, t in ipairs(ctx.data("nvidia_only").tools or {}) do
		for _j, w in ipairs(t.triggers or {}) do
			if text:find(w, 1, true) then
				tools[#tools + 1] = t
				break
			end
		end
	end
	if #tools == 0 then return {} end
	local modules = {}
	for _i, t in ipairs(tools) do
		for _j, m in ipairs(t.modules or {}) do modules[m] = t end
	end
	local fns, uses = {}, {}
	for _i, m in ipairs(ctx.query(path, TOOL_PLACES) or {}) do
		if m.fn then
			fns[#fns + 1] = m
		elseif m.s then
			local v = py.string_value(m.s.text)
			for _j, t in ipairs(v and tools or {}) do
				if t.pattern and v:find(t.pattern) then
					uses[#uses + 1] = { node = m.s, tool = t }
					break
				end
			end
		elseif modules[m.id.text] then
			uses[#uses + 1] = { node = m.id, tool = modules[m.id.text] }
		end
	end
	for _i, u in ipairs(uses) do
		local at = u.node.start_byte
		for _j, f in ipairs(fns) do
			if f.fn.start_byte <= at and f.fn.end_byte > at and (not u.fn or f.fn.start_byte >= u.fn.fn.start_byte) then
				u.fn = f
			end
		end
	end
	return uses
end

-- The functions that run one (the innermost around each use), each once: {fn=, name=, tool=}.
local function tool_functions(ctx, path, text)
	local out, seen = {}, {}
	for _i, u in ipairs(tool_uses(ctx, path, text)) do
		local inner = u.fn
		if inner and not seen[inner.fn.start_byte] then
			seen[inner.fn.start_byte] = true
			out[#out + 1] = { fn = inner.fn, name = inner.name.text, tool = u.tool }
		end
	end
	return out
end

-- The uses of NVIDIA-only tools in the Python file at path (see tool_uses), for checks that
-- report what a file builds or runs with them (blockers.nvcc_build_script).
function cuda.tool_uses(ctx, path)
	return tool_uses(ctx, path, ctx.read(path) or "")
end

local function nvidia_tools(ctx, path, text, sc)
	for _i, f in ipairs(tool_functions(ctx, path, text)) do
		sc.tool_fns[f.name] = sc.tool_fns[f.name] or f.tool
		sc.other[#sc.other + 1] = range(f.fn, { kind = "nvidia_tool", tool = f.tool, name = f.name })
	end
end

-- What a person does with an NVIDIA-only tool's function, as a suggestion.
local function tool_advice(tool)
	local a = { tool = tool.name, notes = _(tool.notes), npu = tool.npu }
	return tool.npu
		and _("{tool} is {notes}. Remove the diagnostic, skip it on the NPU (return unless `torch.cuda.is_available()`), or write its NPU form with `{npu}`.", a)
		or _("{tool} is {notes}. Remove it, or skip it on the NPU (return unless `torch.cuda.is_available()`).", a)
end

-- The file's functions that run an NVIDIA-only tool, as sites for a person (adapt.unsupported).
-- nvcc in a build script using torch's cpp_extension builders sets up the CUDA extension
-- (`extra_compile_args["nvcc"]`): that work is the builder's and the kernels' findings'
-- (blockers.extension_builders, blockers.cuda_sources), and no function to skip.
function cuda.nvidia_tool_functions(ctx, path)
	local text = ctx.read(path) or ""
	local out = {}
	local extension_build = (ctx.find(path, "cpp_extension") or ctx.find(path, "CUDAExtension"))
		and cuda.build_script(ctx, path)
	for _i, f in ipairs(tool_functions(ctx, path, text)) do
		if extension_build and f.tool.name == "nvcc" then goto next end
		out[#out + 1] = { file = path, node = f.fn, category = "device", severity = "warning",
			message = _("`{name}` uses {tool}, which works with NVIDIA GPUs only: ferry does not migrate it line by line, since with its CUDA calls rewritten it would still use {tool} on the NPU host.",
				{ name = f.name, tool = f.tool.name }),
			suggestion = tool_advice(f.tool) }
		::next::
	end
	return out
end

-- The first assertion of a branch (a block node) made only of assertions whose text
-- names no device, torch or CUDA: what CUDA's run requires (`assert gpu, "inference not
-- supported on GPU"`), not device work. nil for any other branch.
local function requirement_only(body)
	local text = body.text
	if text:lower():find("cuda", 1, true) or has_word(text, "torch") or has_word(text, "device")
		or has_word(text, "npu") then
		return nil
	end
	local first, indent = nil, body.col - 1
	for line in ("\n" .. text):gmatch("\n([^\n]*)") do
		local lead, rest = line:match("^(%s*)(.*)$")
		local at_statement = first == nil or #lead == indent
		if rest ~= "" and rest:sub(1, 1) ~= "#" and at_statement then
			if not rest:match("^assert[%s(]") then return nil end
			first = first or (rest:gsub("^assert%s*", ""))
		end
	end
	return first
end

-- The call of single-process multi-GPU training a branch's text makes
-- (`torch.nn.DataParallel(`, `nn.parallel.data_parallel(`), which the NPU does not support
-- (blockers.data_parallel reports it), or nil. DistributedDataParallel is not one.
local function single_process_parallel(text)
	return text:match("[%w_.]*%f[%w_]DataParallel%f[^%w_]") or text:match("[%w_.]*parallel%.data_parallel%f[^%w_]")
end

-- Branches of CUDA tests that reach CUDA-only code (see above): adds to sc.other.
local function kernel_paths(ctx, path, sc)
	local ifs, fns, rets, guards, bodies = {}, {}, {}, {}, {}
	for _i, m in ipairs(ctx.query(path, CUDA_TESTS) or {}) do
		if m["if"] then
			-- a test of the device (`x.is_cuda`, `args.cuda`), not a name that holds the
			-- word (`step == self.cuda_graph_warmup_steps`); under `if not x.is_cuda:` runs
			-- the other devices' code (its else and the guard are read below)
			local negated = m.c.type == "not_operator" and is_cuda_test(m.c.text)
			if not negated and (is_cuda_test(m.c.text) or has_word(m.c.text, "cuda")) then ifs[#ifs + 1] = m end
		elseif m.nif then
			-- `if not x.is_cuda: <fallback> else: <kernel>`: the else branch is CUDA's
			if is_cuda_test(m.nc.text) then
				ifs[#ifs + 1] = { ["if"] = m.nif, c = m.nc, body = m["else"], alt = m.alt }
			end
		elseif m.guard then
			-- `if not x.is_cuda: raise ...` and the kernel after it
			if is_cuda_test(m.gc.text) then guards[#guards + 1] = m end
		elseif m.assert then
			-- `assert x.is_cuda` guards the same way (not `assert not x.is_cuda`)
			if is_cuda_test(m.assert.text) and not m.assert.text:find("not%s+[%w_.]*is_cuda") then
				guards[#guards + 1] = { guard = m.assert, gc = m.assert }
			end
		elseif m.ret then
			if is_cuda_test(m.test.text) then rets[#rets + 1] = m end
		elseif m.class then
			-- a class of the file, its bases included (`class FusedLayerNorm(_FusedLayerNorm)`
			-- over apex's), reaches what its definition names
			fns[m.cname.text] = fns[m.cname.text] or { fbody = m.class }
		else
			fns[m.name.text] = fns[m.name.text] or m
			bodies[#bodies + 1] = m.fbody
		end
	end
	-- a guard's CUDA path is the rest of the function it is in
	for _i, g in ipairs(guards) do
		local around
		for _j, b in ipairs(bodies) do
			if b.start_byte <= g.guard.start_byte and b.end_byte >= g.guard.end_byte
				and (not around or b.start_byte >= around.start_byte) then around = b end
		end
		if around then
			local from, to = g.guard.end_byte, around.end_byte
			-- an assert or a guard that raises stops other devices; one that returns sends
			-- them down its own path
			local stops = g.guard.type == "assert_statement" or not g.guard.text:find("%f[%w_]return%f[^%w_]")
			ifs[#ifs + 1] = { ["if"] = g.guard, c = g.gc, guard = stops, body = { start_byte = from, end_byte = to,
				text = ctx.node_text(path, from, to) } }
		end
	end
	-- a test a CUDA skip guard lets run only where CUDA is: the guard's branch
	for _i, g in ipairs(sc.skips) do
		ifs[#ifs + 1] = { ["if"] = g.region, c = g.region, body = g.region, skip = g }
	end
	if #ifs == 0 and #rets == 0 then return end
	local _libs, ordered = cuda_only(ctx)
	-- imports are resolved only when a branch names what they bind (most never are)
	local imps, bound = py.imports(ctx, path) or {}, {}
	for _i, imp in ipairs(imps) do
		if imp.bound then bound[imp.bound] = imp end
	end
	local reaches = {} -- import -> {lib=, via=} or false
	local function reach_of(imp)
		if reaches[imp] == nil then
			local lib = import_reaches(ctx, path, imp)
			reaches[imp] = lib and { lib = lib, via = imp.bound or imp.module } or false
		end
		return reaches[imp]
	end
	-- CUDA-only code the text between s and e imports or names; with hop, also through a
	-- function of the file it calls
	local fn_reach = {}
	local function reached(text, s, e, hop)
		for _i, imp in ipairs(imps) do
			local b = imp.node.start_byte
			if b >= s and b < e and reach_of(imp) then return reach_of(imp) end
		end
		local seen = {}
		for word in text:gmatch("[%a_][%w_]*") do
			if not seen[word] then
				seen[word] = true
				local r = bound[word] and reach_of(bound[word])
				if r then return r end
				local tool = hop and sc.tool_fns[word]
				if tool then return { tool = tool, via = word } end
				local f = hop and fns[word]
				if f then
					if fn_reach[word] == nil then
						local via = reached(f.fbody.text, f.fbody.start_byte, f.fbody.end_byte, false)
						fn_reach[word] = via and { lib = via.lib, via = word } or false
					end
					if fn_reach[word] then return fn_reach[word] end
				end
			end
		end
		return nil
	end
	-- an if whose branch is left to CUDA: its range, where its body starts and its test (the
	-- first line and its line number), for a site in the body to say which branch it is in
	local function branch(m, extra)
		extra.s, extra.e, extra.body_s = m["if"].start_byte, m.body.end_byte, m.body.start_byte
		extra.test, extra.test_line = m.c.text:match("^[^\n]*"), m.c.line
		return extra
	end
	for _i, m in ipairs(ifs) do
		-- a branch that wraps the model in DataParallel (pytorch/examples' imagenet: `elif
		-- device.type == 'cuda': model = torch.nn.DataParallel(model).cuda()`): the NPU has
		-- no DataParallel, and as the code stands it takes the other path, which runs there
		local parallel = not m.skip and single_process_parallel(m.body.text)
		if parallel then
			sc.other[#sc.other + 1] = branch(m, { kind = "unsupported", via = parallel })
			goto next_if
		end
		-- torch's private CUDA bindings (`torch._C._cuda_isInBadFork()`) and Caffe2's GPU
		-- operators and device (`torch.ops._caffe2.CopyGPUToCPU`, `caffe2_pb2.CUDA`) do not
		-- exist on the NPU: a branch calling one is CUDA's own (accelerate's fork check,
		-- detectron2's Caffe2 export)
		local private = m.body.text:match("torch%._C%._cuda_[%w_]*") or m.body.text:match("torch%.ops%._caffe2%.[%w_]+")
			or m.body.text:match("caffe2_pb2%.CUDA")
		if private and m.skip then
			m.skip.reached = { kind = "private", via = private }
		elseif private then
			sc.other[#sc.other + 1] = branch(m, { kind = "private", via = private })
		end
		-- a branch that only asserts what CUDA requires (yolov5's benchmarks assert the GPU
		-- column of its export formats table): the NPU need not share the requirement
		local req = not private and not m.skip and m.body.col and requirement_only(m.body)
		if req then
			sc.other[#sc.other + 1] = { s = m["if"].start_byte, e = m.body.end_byte, kind = "requirement", via = req }
		end
		local r = not private and not req and reached(m.body.text, m.body.start_byte, m.body.end_byte, true)
		if not r and not private and not req then
			local cond = m.c.text:lower()
			for _j, lib in ipairs(ordered) do
				local name = lib.name
				if not lib.generic and (has_word(cond, name) or cond:find("has_" .. name, 1, true)
					or cond:find(name .. "_available", 1, true)) then
					r = { lib = lib, via = m.c.text:match("^[^\n]*") }
					break
				end
			end
		end
		local kind = r and (r.tool and "nvidia_tool" or "kernel")
		if r and m.skip then
			m.skip.reached = { kind = kind, lib = r.lib, tool = r.tool, via = r.via }
		elseif r then
			-- the path the NPU takes calls the same binding (a CPU kernel of the extension)
			local word = r.via and r.via:match("^[%a_][%w_]*")
			sc.other[#sc.other + 1] = branch(m, { kind = kind, lib = r.lib, tool = r.tool, via = r.via,
				test_node = m.c, guard = m.guard, both = word and m.alt and has_word(m.alt.text, word) or nil })
		end
		::next_if::
	end
	-- in a module that imports CUDA-only code, a function returning a CUDA test tells
	-- whether that code applies (`return x.device.type == "cuda" and ...`)
	if #rets > 0 then
		local first
		for _i, imp in ipairs(imps) do
			first = reach_of(imp)
			if first then break end
		end
		for _i, m in ipairs(first and rets or {}) do
			sc.other[#sc.other + 1] = range(m.ret, { kind = "kernel", lib = first.lib, via = first.via })
		end
	end
end

-- torch.cuda APIs whose calls a person rewrites (see above), by their last name, once per
-- run.
local manual_apis
local function manual(ctx)
	if not manual_apis then
		manual_apis = {}
		for _i, e in ipairs(ctx.data("cuda_api_map").entries or {}) do
			if e.manual or e.fields then manual_apis[e.name:match("[^.]*$")] = e end
		end
	end
	return manual_apis
end

local MANUAL_CALLS = [[
(assignment left: (identifier) @var right: (call function: [(identifier) (attribute)] @f) @call) @assign
(function_definition body: (block) @fnbody)
(call function: [(identifier) (attribute)] @f) @call
(attribute object: (call function: [(identifier) (attribute)] @f) @call attribute: (identifier) @field)
(boolean_operator) @test
(comparison_operator) @test
(conditional_expression) @test
(not_operator) @test
(if_statement condition: (_) @gcond (#match? @gcond "[cC][uU][dD][aA]")
  consequence: (block [(raise_statement) (return_statement)] .) !alternative) @guard
]]

-- A guard's condition that lets only CUDA through (`not torch.cuda.is_available() or not
-- use_flash`, `not x.is_cuda`): the code after it in the function is CUDA's path.
local function cuda_only_past(cond)
	return cond:match("not%s+[%w_%.]*cuda[%w_%.]*%.is_available%s*%(%s*%)") ~= nil
		or cond:match("not%s+[%w_%.]+%.is_cuda%f[^%w_]") ~= nil
end

-- Calls of the manual APIs and the tests around them (see above): adds to sc.other.
local function manual_calls(ctx, path, text, sc)
	local apis, any = manual(ctx), false
	for name in pairs(apis) do
		if text:find(name, 1, true) then any = true end
	end
	if not any then return end
	local calls, tests, assigned, bodies, map = {}, {}, {}, {}, nil
	local function filled(e, field)
		for _j, f in ipairs(e.fields) do
			if f == field then return true end
		end
		return false
	end
	local function is_api(e, d)
		map = map or py.aliases(ctx, path) or {}
		return py.expand(map, d) == e.name
	end
	local guards = {}
	for _i, m in ipairs(ctx.query(path, MANUAL_CALLS) or {}) do
		if m.guard then
			if cuda_only_past(m.gcond.text) then guards[#guards + 1] = m.guard end
		elseif m.test then
			tests[#tests + 1] = m.test
		elseif m.fnbody then
			bodies[#bodies + 1] = m.fnbody
		else
			local d = py.dotted(m.f.text)
			local e = d and apis[d:match("[^.]*$")]
			if m.assign then
				if e and e.fields then assigned[#assigned + 1] = { m = m, entry = e, d = d } end
			-- an API with fields needs a person only where its result is read for another one
			elseif e and (e.manual or (e.fields and m.field and not filled(e, m.field.text))) and is_api(e, d) then
				calls[#calls + 1] = { node = m.call, entry = e }
			end
		end
	end
	-- `prop = torch.cuda.get_device_properties(d)` and, further on in the same function
	-- (or module), `prop.major`: the result is read for a field the NPU form lacks
	for _i, a in ipairs(assigned) do
		local from, to = a.m.assign.end_byte, #text
		for _j, b in ipairs(bodies) do
			if b.start_byte <= from and b.end_byte >= from and b.end_byte - 1 < to then to = b.end_byte - 1 end
		end
		local var = a.m.var.text
		for field in text:sub(from + 1, to + 1):gmatch("%f[%w_]" .. var .. "%.([%a_][%w_]*)") do
			if not filled(a.entry, field) and is_api(a.entry, a.d) then
				calls[#calls + 1] = { node = a.m.call, entry = a.entry }
				break
			end
		end
	end
	for _i, c in ipairs(calls) do
		local outer = c.node
		for _j, t in ipairs(tests) do
			if t.start_byte <= outer.start_byte and t.end_byte >= outer.end_byte then outer = t end
		end
		sc.other[#sc.other + 1] = range(outer, { kind = "manual", entry = c.entry })
		-- a guard earlier in the same function that only lets CUDA reach the call (vit-pytorch's
		-- `if not torch.cuda.is_available() or not use_flash: return`): rewritten alone, it
		-- would send the NPU into the call it used to return before
		for _j, g in ipairs(guards) do
			if g.end_byte <= c.node.start_byte then
				local body
				for _k, b in ipairs(bodies) do
					if b.start_byte <= g.start_byte and b.end_byte >= g.end_byte
						and (not body or b.start_byte >= body.start_byte) then body = b end
				end
				if body and body.end_byte >= c.node.end_byte then
					sc.other[#sc.other + 1] = range(g, { kind = "manual", entry = c.entry })
				end
			end
		end
	end
end

-- "" for a bracketed collection of two or more strings and nothing else, for gsub; nil
-- (kept as it is) otherwise.
local function names_only(group)
	local inner = group:sub(2, -2)
	local n = 0
	local rest = inner:gsub("[rRuUbB]?([\"'])[^\"']*%1", function() n = n + 1 return "" end)
	if n >= 2 and rest:match("^[%s,]*$") then return "" end
	return nil
end

-- Functions that choose among accelerators (see above): adds to sc.other.
local function dispatchers(ctx, path, sc)
	local fns, conds = {}, {}
	for _i, m in ipairs(ctx.query(path, DISPATCH) or {}) do
		if m.fn then fns[#fns + 1] = range(m.fn) else conds[#conds + 1] = m.c end
	end
	local named = {} -- function start -> {accelerator word -> true}
	for _i, c in ipairs(conds) do
		local scope = scope_at(fns, c.start_byte)
		local set = named[scope] or {}
		named[scope] = set
		-- a collection of names (`kind not in ("cpu", "gpu", "npu", "xpu")`) lists what is
		-- supported; the tests that choose are the names compared one by one
		local text = c.text:gsub("%b()", names_only):gsub("%b[]", names_only):gsub("%b{}", names_only)
		for word in text:gmatch("[%a%d]+") do
			local w = word:lower()
			if w == "cuda" or w == "gpu" then set.cuda = true
			elseif w == "npu" then set.npu = true
			elseif DISPATCH_OTHERS[w] then set[w] = true end
		end
	end
	for _i, f in ipairs(fns) do
		local set = named[f.s]
		-- one that tests for the NPU already has its branch (see npu_choices)
		if set and set.cuda and not set.npu then
			local others = {}
			for w in pairs(set) do
				if w ~= "cuda" then others[#others + 1] = w end
			end
			if #others > 0 then
				table.sort(others)
				table.insert(others, 1, "cuda")
				sc.other[#sc.other + 1] = { s = f.s, e = f.e, kind = "dispatch", names = table.concat(others, ", ") }
			end
		end
	end
end

-- The file's places that must stay as they are: {keep=, owned=, other=, tables=, none=}
-- (ranges {s=, e=} of byte offsets), worked out once for the file the detectors are on.
-- Whether text has any of the words, plain (fast) searches first.
local function has_any(text, words)
	for _i, w in ipairs(words) do
		if text:find(w, 1, true) then return true end
	end
	return false
end

-- Whether text has any of the words at the start of a word or after an underscore
-- ("is_tpu_available", "torch.xpu"; not the "tpu" of "output").
local function has_word_start(text, words)
	for _i, w in ipairs(words) do
		if has_bounded(text, w, "%w") then return true end
	end
	return false
end

-- Whether text names the NPU as a word of its own ("npu", "torch_npu", "NPU_Accelerator",
-- not "input").
local function names_npu(text)
	for _i, w in ipairs({ "npu", "NPU", "Npu" }) do
		if has_bounded(text, w, "%a") then return true end
	end
	return false
end

-- Test skip guards that test CUDA (`@pytest.mark.skipif(not torch.cuda.is_available(),
-- ...)`, `if not torch.cuda.is_available(): self.skipTest(...)`) and the tests they guard:
-- the guard and the test move together. Each guard's region is the definition it
-- decorates, else the function it is in, else the module (`pytestmark = ...`).
local DEFINITIONS = "[(decorated_definition definition: (_) @def) @dd (function_definition) @fn]"
local function skip_regions(ctx, path, text, sc)
	if #sc.skips == 0 then return end
	local decorated, fns = {}, {}
	for _i, m in ipairs(ctx.query(path, DEFINITIONS) or {}) do
		if m.dd then decorated[#decorated + 1] = { dd = m.dd, def = m.def } else fns[#fns + 1] = m.fn end
	end
	local function smallest(list, inside)
		local best
		for _i, x in ipairs(list) do
			if inside(x) and (not best or (x.dd or x).start_byte >= (best.dd or best).start_byte) then best = x end
		end
		return best
	end
	for _i, g in ipairs(sc.skips) do
		local d = smallest(decorated, function(x) return g.s >= x.dd.start_byte and g.e <= x.def.start_byte end)
		local f = not d and smallest(fns, function(x) return g.s >= x.start_byte and g.e <= x.end_byte end)
		local node = d and d.dd or f
		g.region = node and { start_byte = node.start_byte, end_byte = node.end_byte, text = node.text }
			or { start_byte = 0, end_byte = #text, text = text }
	end
end

-- What keeps a test's code on CUDA, for the guard that skips it: a name, or nil.
local function kept_by(r)
	if r.kind == "kernel" or r.kind == "nvidia_block" or r.kind == "launcher" then return r.lib.name end
	if r.kind == "nvidia_tool" then return r.tool.name end
	if r.kind == "manual" then return r.entry.name end
	if r.kind == "dispatch" then return r.names end
	if r.kind == "marker" then return r.entry.marker end
	return r.via or r.name or r.kind
end

-- A guard whose test keeps code on CUDA (a CUDA-only kernel, a call needing a person)
-- stays, and the whole test stays with it; any other guard is rewritten with the test it
-- guards (its skip range is dropped), so a migrated test runs on the NPU.
local function settle_skips(sc)
	local drop = {}
	for _i, g in ipairs(sc.skips) do
		local s, e = g.region.start_byte, g.region.end_byte
		local why = g.reached and kept_by(g.reached)
		for _j, r in ipairs(why and {} or sc.other) do
			if r.kind ~= "skip" and r.kind ~= "skip_kept" and r.kind ~= "skipped" and r.s < e and r.e > s then
				why = kept_by(r)
				break
			end
		end
		if why then
			g.kind, g.why = "skip_kept", why
			sc.other[#sc.other + 1] = { s = s, e = e, kind = "skipped", guard = g }
		else
			drop[g] = true
		end
	end
	if next(drop) then
		local other = {}
		for _i, r in ipairs(sc.other) do
			if not drop[r] then other[#other + 1] = r end
		end
		sc.other = other
	end
end

-- The parts of a file's scene, each worked out when first needed: "tables" (device
-- tables), "choices" (code that already chooses the NPU, other accelerators), "other"
-- (CUDA tests choosing something else). A detector that finds nothing in a file needs
-- none of them, and one whose sites carry no edit needs no "other".
local PARTS = {
	tables = function(ctx, path, text, sc)
		if has_any(text, { "cuda\"", "cuda'" }) and text:find("[\"']cuda[\"']%s*:") then
			device_tables(ctx, path, text, sc)
		end
	end,
	choices = function(ctx, path, text, sc)
		if names_npu(text) then npu_choices(ctx, path, sc) end
		if text:find("ccelerator", 1, true) then accelerators(ctx, path, text, sc) end
	end,
	other = function(ctx, path, text, sc)
		if has_any(text, { "cuda", "CUDA", "Cuda" }) then
			other_choices(ctx, path, text, sc)
			skip_regions(ctx, path, text, sc)
			lightning_choices(ctx, path, text, sc)
			cuda_predicates(ctx, path, sc)
			nvidia_tools(ctx, path, text, sc)
			kernel_paths(ctx, path, sc)
			if text:find("\n[ \t]+import ") or text:find("\n[ \t]+from ") then nvidia_blocks(ctx, path, sc) end
			if text:find("](", 1, true) then kernel_launchers(ctx, path, sc) end
			manual_calls(ctx, path, text, sc)
		end
		if text:find("nccl", 1, true) then nccl_branches(ctx, path, sc) end
		if has_word_start(text, DISPATCH_WORDS) then dispatchers(ctx, path, sc) end
		settle_skips(sc)
	end,
}

local function need(ctx, path, sc, name)
	if sc.done[name] then return end
	sc.done[name] = true
	sc.text = sc.text or ctx.read(path) or ""
	PARTS[name](ctx, path, sc.text, sc)
end

local last_path, last_scene
scene = function(ctx, path, ...)
	if last_path ~= path or not last_scene then
		last_path, last_scene = path, { keep = {}, owned = {}, other = {}, tables = {}, done = {}, skips = {}, tool_fns = {} }
	end
	for _i, name in ipairs({ ... }) do need(ctx, path, last_scene, name) end
	return last_scene
end

local MOVE_TOGETHER = _("Move the test and its guard together: give the test an NPU form of what stays on CUDA and test the NPU in the guard (`torch.npu.is_available()`), or keep both for GPUs.")

local DDP_INSTEAD = _("Keep the CUDA test, so the branch runs on GPUs only. To use several NPUs, run one process per NPU with DistributedDataParallel (torchrun, backend 'hccl').")

local PRIVATE_ADVICE = _("Keep the CUDA test, so the branch runs on GPUs only. If the NPU needs the same check, add a branch beside it with torch_npu's public API.")

-- The advice for a CUDA test kept because its path runs on NVIDIA GPUs only (lib: the
-- library's entry): the NPU's replacement where one is known.
local function kernel_advice(lib)
	if lib.replacement then
		return _("Keep the CUDA test. If the path the NPU takes is too slow, add an NPU branch beside it with {replacement}.",
			{ replacement = _(lib.replacement) })
	end
	return _("Keep the CUDA test. If the path the NPU takes is too slow, add an NPU branch beside it written with torch operators (torch_npu fused operators where they exist).")
end

-- The advice for a site left in a branch only CUDA takes, by what the branch holds (a
-- kernel's branch has its own words: kernel_site).
local function branch_advice(why)
	if why.kind == "unsupported" then return DDP_INSTEAD end
	if why.kind == "nvidia_tool" then return tool_advice(why.tool) end
	return PRIVATE_ADVICE
end

-- What a branch left to CUDA holds that the NPU cannot run (a translated clause), for a
-- site in it: "uses `nn.DataParallel`, single-process multi-GPU training, ...".
local function branch_holds(why)
	if why.kind == "unsupported" then
		return _("uses `{via}`, single-process multi-GPU training, which the NPU does not support", { via = why.via })
	elseif why.kind == "private" and why.via:find("caffe2", 1, true) then
		return _("uses `{via}`, Caffe2's GPU device or operators, which do not exist on the NPU", { via = why.via })
	elseif why.kind == "nvidia_tool" then
		return _("calls `{name}`, which uses {tool}", { name = why.via, tool = why.tool.name })
	end
	return _("calls `{via}`, one of torch's private CUDA bindings, which do not exist on the NPU", { via = why.via })
end

-- Says why site (its first line code), in or at a CUDA test whose branch runs code for
-- NVIDIA GPUs only (why: {lib=, via=, test_node= the test, guard= the test stops other
-- devices, both= the other path calls the same binding}), is not rewritten.
local function kernel_site(site, code, why)
	local a = { code = code, library = why.lib.name, via = why.via,
		test = why.test_node and why.test_node.text:match("^[^\n]*"):gsub("^not%s+", "") or code }
	local b = site.node.start_byte
	local at_test = not why.test_node or (b >= why.test_node.start_byte and b < why.test_node.end_byte)
	local port = _("Port what the CUDA code computes to torch or torch_npu operators (or an Ascend C custom operator), then give the NPU a path that calls it.")
	if not at_test then
		site.message = _("`{code}` is in the CUDA path of `{test}`, which runs code for NVIDIA GPUs only ({library}, through `{via}`): the NPU does not run it, so ferry does not rewrite it.", a)
		site.suggestion = _("Leave it with the CUDA code it belongs to; the finding on `{test}` says what the NPU needs.", a)
	elseif why.guard then
		a.stop = why.test_node.type == "assert_statement" and _("the assertion fails") or _("the guard raises")
		site.message = _("`{code}` lets only CUDA through to code that runs on NVIDIA GPUs only ({library}, through `{via}`): on the NPU it stops there ({stop}), and rewriting the test would send the NPU into code it cannot run, so ferry does not rewrite it.", a)
		site.suggestion = port
	elseif why.both then
		site.message = _("`{code}` chooses between two calls of `{via}` ({library}): the CUDA one runs on NVIDIA GPUs only, and the other, which the NPU takes, calls the same extension's code for host tensors with NPU tensors, so neither runs on the NPU; ferry does not rewrite the test.", a)
		site.suggestion = port
	else
		site.message = _("`{code}` chooses code that runs on NVIDIA GPUs only ({library}, through `{via}`): on the NPU the other path runs, and rewriting the test would send the NPU into code it cannot run, so ferry does not rewrite it.", a)
		site.suggestion = kernel_advice(why.lib)
	end
end

-- A site that chooses something other than torch's device keeps no edit and says why.
local function disarm(site, why)
	local code = site.node.text:match("^[^\n]*")
	site.edits, site.fix_message, site.fix_suggestion = nil, nil, nil
	if why.kind == "kernel" then
		-- a kernel's test may be an assert or a guard, or test for the host (`if not x.is_cuda:`)
		kernel_site(site, code, why)
	elseif why.body_s and site.node.start_byte >= why.body_s and not why.name then
		-- a call in the branch, not the test choosing it
		site.message = _("`{code}` is in a branch only CUDA takes (`{test}`, line {line}), which {holds}: ferry leaves the branch and its test as they are, so the NPU keeps taking the other path.",
			{ code = code, test = why.test, line = why.test_line, holds = branch_holds(why) })
		site.suggestion = branch_advice(why)
	elseif why.kind == "skip" then
		site.message = _("`{code}` decides whether a test runs: ferry cannot tell whether the test needs a CUDA-only kernel or just an accelerator, so it does not rewrite it.",
			{ code = code })
		site.suggestion = _("If the test should run on the NPU too, test the NPU here (`torch.npu.is_available()`, after `import torch_npu`); if it needs a CUDA kernel, leave it, and the test is skipped on the NPU.")
	elseif why.kind == "skip_kept" then
		site.message = _("`{code}` skips a test that keeps code for CUDA ({why}): ferry leaves the guard and the test as they are, so on the NPU the test is skipped rather than run half-migrated.",
			{ code = code, why = why.why })
		site.suggestion = MOVE_TOGETHER
	elseif why.kind == "skipped" then
		site.message = _("`{code}` is in a test that runs only where CUDA is (`{guard}`), and the guard stays for a person ({why}): ferry leaves the test as it is, since a migrated test under a CUDA guard is never run on the NPU.",
			{ code = code, guard = why.guard.code, why = why.guard.why })
		site.suggestion = MOVE_TOGETHER
	elseif why.kind == "lightning" then
		site.message = _("`{code}` chooses Lightning's accelerator, and Lightning has no NPU accelerator of its own: neither \"npu\" there nor a CUDA test rewritten to still pick \"cuda\" would run on the NPU host, so ferry leaves the test and the accelerator to a person.",
			{ code = code })
		site.suggestion = why.entry and why.entry.notes and _("Port it as a whole, not line by line: {notes}.", { notes = _(why.entry.notes) })
			or nil
	elseif why.kind == "dispatch" then
		site.message = _("`{code}` is in a function that chooses among accelerators ({names}): rewriting its CUDA branch for the NPU would take CUDA out of the choice, so ferry does not rewrite it.",
			{ code = code, names = why.names })
		site.suggestion = _("Add an NPU branch beside the CUDA one (tested with `torch.npu.is_available()` after `import torch_npu`, using `torch.npu` and the 'npu' device), and keep the CUDA branch for GPUs.")
	elseif why.kind == "unsupported" then
		site.message = _("`{code}` chooses a branch that uses `{via}`, single-process multi-GPU training, which the NPU does not support: as the code stands the NPU takes the other path, and rewriting the test would send it into that call, so ferry does not rewrite it.",
			{ code = code, via = why.via })
		site.suggestion = DDP_INSTEAD
	elseif why.kind == "private" then
		site.message = why.via:find("caffe2", 1, true)
			and _("`{code}` chooses a branch that uses `{via}`, Caffe2's GPU device or operators, which do not exist on the NPU: rewriting the test would send the NPU into that code, so ferry does not rewrite it.",
				{ code = code, via = why.via })
			or _("`{code}` chooses a branch that calls `{via}`, one of torch's private CUDA bindings, which do not exist on the NPU: rewriting the test would send the NPU into that call, so ferry does not rewrite it.",
				{ code = code, via = why.via })
		site.suggestion = PRIVATE_ADVICE
	elseif why.kind == "manual" then
		local a = { code = code, api = why.entry.name, notes = _(why.entry.notes) }
		if code:find(why.entry.name:match("[^.]*$"), 1, true) then
			site.message = _("`{code}` needs a person on the NPU: {notes}; ferry rewrites neither the call nor what is tested with it, since a rewrite would fail there.", a)
		else
			site.message = _("`{code}` goes with a call of `{api}`, whose NPU form needs a person: {notes}; rewriting only part of it would fail on the NPU, so ferry does not rewrite it.", a)
		end
		site.suggestion = _("Decide what this code should do on the NPU (a capability test usually gates a feature: bf16, flash attention, TF32) and rewrite the expression as a whole, with `{npu}` where it still needs the call.",
			{ npu = (why.entry.npu:gsub("^torch_npu%.npu%.", "torch.npu.")) })
	elseif why.kind == "nvidia_tool" then
		local a = { code = code, tool = why.tool.name, name = why.name or why.via }
		site.message = why.name
			and _("`{code}` is in `{name}`, a diagnostic for NVIDIA GPUs that uses {tool}: with its CUDA calls rewritten it would still use {tool} on the NPU host, so ferry leaves the function to a person.", a)
			or _("`{code}` is part of a CUDA test whose branch calls `{name}`, which uses {tool}: rewritten, the test would send the NPU host into that function, so ferry leaves the test and its branch to a person.", a)
		site.suggestion = tool_advice(why.tool)
	elseif why.kind == "nvidia_block" and why.lib.target then
		-- a deployment target for NVIDIA GPUs (TensorRT's backend): a path that does not apply
		-- on an Ascend host, asking for no change (gpu_libraries.json `target`)
		site.severity = "info"
		site.message = _("`{code}` is in a block that imports {library} (`{via}`), the path of {what}: a deployment target for NVIDIA GPUs that does not apply on an Ascend host, so ferry leaves it as it is.",
			{ code = code, library = why.lib.name, via = why.via, what = _(why.lib.target.what) })
		site.suggestion = _("Nothing to change for the NPU: keep it for GPU deployments. On the Ascend host the model runs another way (torch on the NPU, or the ONNX export converted by ATC into an offline model).")
	elseif why.kind == "nvidia_block" then
		site.message = _("`{code}` is in a block that imports {library} (`{via}`), code for NVIDIA GPUs only: its devices are CUDA's, so ferry does not rewrite it.",
			{ code = code, library = why.lib.name, via = why.via })
		site.suggestion = _("Keep it for the GPU path; on the NPU host choose another backend before this block (torch itself, or the NPU's own runtime).")
	elseif why.kind == "nccl_only" then
		site.severity = "info"
		site.message = _("`{code}` chooses a branch that passes `{keyword}=` to `{call}`, which only NCCL takes: on the NPU the backend is HCCL and the other branch runs, the one it needs; rewritten, the test would send HCCL into that call, so ferry leaves it.",
			{ code = code, keyword = why.entry.keyword, call = why.entry.call })
		site.suggestion = _("Keep the test as it is: on the NPU host it is false and the code takes the branch written for other backends.")
	elseif why.kind == "launcher" then
		local a = { code = code, name = why.name, kernel = why.via, library = why.lib.name,
			replacement = why.lib.replacement and _(why.lib.replacement) }
		site.message = _("`{code}` is in `{name}`, which launches `{kernel}`, a {library} kernel for NVIDIA GPUs only: the tensors made there are the kernel's buffers, so ferry leaves their device as it is.", a)
		site.suggestion = a.replacement
			and _("Keep it for the GPU path. To run the kernel on the NPU, port the module as a whole to {replacement}: the launcher, its buffers and the test that chooses it, not the device strings alone.", a)
			or _("Keep it for the GPU path; on the NPU the code that chooses this kernel takes its torch path.")
	elseif why.kind == "cuda_named" then
		site.message = _("`{code}` is in `{name}`, a function whose name says it answers for CUDA: rewritten, it would answer for the NPU and its callers would take their CUDA path there, so ferry does not rewrite it.",
			{ code = code, name = why.name })
		site.suggestion = _("Keep it for CUDA. Where its callers choose a device, add an NPU branch beside the CUDA one (`torch.npu.is_available()` after `import torch_npu`), or an `is_npu_available()` of the same shape.")
	elseif why.kind == "requirement" then
		site.message = _("`{code}` makes CUDA's run assert `{via}`, a requirement of the GPU (a capability flag or a column of a table), not a test of the device torch runs on: rewritten, the NPU would be held to the GPU's requirement, so ferry does not rewrite it.",
			{ code = code, via = why.via })
		site.suggestion = _("Decide what the NPU requires here: add an NPU branch beside the CUDA one with its own condition (for example an NPU column), or none.")
	elseif why.kind == "build" then
		site.message = _("`{code}` is in `{file}`, a build script, which decides what to build, not where torch runs; ferry does not rewrite it.",
			{ code = code, file = site.file })
		site.suggestion = _("Decide by hand how the package builds on the NPU host: CUDA sources cannot be built there, and what they compute needs an NPU implementation.")
	else
		site.message = _("`{code}` here chooses {what} (`{marker}`), not the device torch runs on; ferry leaves the choice to a person.",
			{ code = code, what = _(why.entry.what), marker = why.entry.marker })
		site.suggestion = _("On the NPU host: {advice}.", { advice = _(why.entry.fix) })
	end
end

settle = function(ctx, path, sites)
	if #sites == 0 then return sites end
	local sc = scene(ctx, path, "tables", "choices")
	for _i, s in ipairs(sites) do
		if (s.edits and #s.edits > 0) or s.fix_message then -- a guess may be a choice of Lightning's
			scene(ctx, path, "other")
			break
		end
	end
	if #sc.keep == 0 and #sc.owned == 0 and #sc.other == 0 then return sites end
	local out = {}
	for _i, s in ipairs(sites) do
		local b = s.node and s.node.start_byte
		local why = b and covering(sc.other, b)
		if why then
			if (s.edits and #s.edits > 0) or why.kind == "lightning" then disarm(s, why) end
			out[#out + 1] = s
		elseif not (b and (covering(sc.keep, b) or covering(sc.owned, b))) then
			out[#out + 1] = s
		end
	end
	return out
end

-- Whether code at byte b of the file stays as it is (kept, or chooses something other
-- than torch's device): an import binding a name used there is not rewritten either.
function cuda.stays(ctx, path, b)
	local sc = scene(ctx, path, "tables", "choices", "other")
	return (covering(sc.keep, b) or covering(sc.owned, b) or covering(sc.other, b)) ~= nil
end

-- Whether code at byte b of the file is in a block that imports a deployment target for
-- NVIDIA GPUs (gpu_libraries.json `target`: yolov5's TensorRT backend), a path that does not
-- apply on an Ascend host: the library's entry, else nil.
function cuda.gpu_target_block(ctx, path, b)
	for _i, r in ipairs(scene(ctx, path, "other").other) do
		if b >= r.s and b < r.e and r.kind == "nvidia_block" and r.lib.target then return r.lib end
	end
	return nil
end

-- The condition (its first line) of the CUDA test whose branch holds byte b of the file
-- when that branch is left to GPUs because it uses single-process multi-GPU training
-- (imagenet's `elif device.type == 'cuda':` around DataParallel), else nil: as the code
-- stands the NPU never runs that code.
function cuda.cuda_only_parallel(ctx, path, b)
	for _i, r in ipairs(scene(ctx, path, "other").other) do
		if b >= r.body_s and b < r.e and r.kind == "unsupported" then return r.test end
	end
	return nil
end

-- Whether code at byte b of the file is left to a person as a CUDA test's choice (sc.other:
-- the if choosing Lightning's accelerator by a CUDA test, a kernel path ...).
function cuda.left_to_person(ctx, path, b)
	return covering(scene(ctx, path, "tables", "choices", "other").other, b) ~= nil
end

-- The detectors the assess survey, the adapt checks and the import planner all run on the
-- same files, worked out once per file and run by whichever check comes first and copied to
-- the others (ctx.shared). Their other arguments are the project's (the API index, apex's
-- fused names, the environment table) or the file's aliases: the same for every caller.
for _i, name in ipairs({ "cuda_calls", "device_strings", "device_branches", "cuda_apis", "amp", "backend",
	"env_python" }) do
	local detect = cuda[name]
	cuda[name] = function(ctx, path, ...)
		local args = table.pack(...)
		return ctx.shared("cuda." .. name, path, function() return detect(ctx, path, table.unpack(args, 1, args.n)) end)
	end
end

return cuda
