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

---------------------------------------------------------------------------------------
-- .cuda(...) calls

local CUDA_CALL = [[
(call function: (attribute object: (_) @obj attribute: (identifier) @m (#eq? @m "cuda")) arguments: (argument_list) @args) @call
]]

-- x.cuda(...) -> x.npu(...), arguments kept (positional device, non_blocking=, device=).
function cuda.cuda_calls(ctx, path)
	local out = {}
	for _i, m in ipairs(ctx.query(path, CUDA_CALL) or {}) do
		if m.obj.text ~= "torch" then
			out[#out + 1] = {
				file = path, node = m.call,
				message = _("`{obj}.cuda()` moves this object to an NVIDIA GPU.", { obj = m.obj.text }),
				suggestion = _("Call `.npu()` instead (after `import torch_npu`), or better `.to(device)` with one device variable set to 'npu'."),
				edits = { py.replace(m.m, "npu") },
			}
		end
	end
	table.sort(out, by_start)
	return out
end

---------------------------------------------------------------------------------------
-- device strings

-- Strings that name the CUDA device: 'cuda', 'cuda:0', 'cuda:%d', 'cuda:%s', 'cuda:{}',
-- f'cuda:{rank}', and 'cuda:' (followed by + str(i)).
function cuda.device_string(inner)
	return inner == "cuda" or inner == "cuda:" or inner:match("^cuda:%d+$") ~= nil or inner == "cuda:%d"
		or inner == "cuda:%s" or inner:match("^cuda:{[^{}]*}$") ~= nil
end

local AMP_FUNCS = { autocast = true, GradScaler = true }
local DEVICE_FUNCS = {
	["torch.device"] = true, ["torch.cuda.device"] = true, ["torch.npu.device"] = true,
	["torch.cuda.set_device"] = true, ["torch.npu.set_device"] = true,
}
local DEVICE_METHODS = { to = true, to_empty = true }
local DEVICE_KEYWORDS = { device = true, map_location = true }

local DEVICE_CTX = [[
(call function: (_) @f arguments: (argument_list . (_) @v)) @call
(call function: (_) @kf arguments: (argument_list (keyword_argument name: (identifier) @k value: (_) @v)))
(call function: (attribute attribute: (identifier) @aa (#eq? @aa "add_argument"))
  arguments: (argument_list . (string) @opt (keyword_argument name: (identifier) @dk (#eq? @dk "default") value: (_) @v)))
(assignment left: (_) @lhs right: (_) @v)
(comparison_operator (string) @cs)
]]
-- Expressions that build a device from a string: 'cuda:%d' % i, 'cuda:{}'.format(i),
-- 'cuda:' + str(i), 'cuda' if ok else 'cpu'.
local HEADS = [[
(binary_operator left: (string) @s) @e
(call function: (attribute object: (string) @s attribute: (identifier) @fm (#eq? @fm "format"))) @e
(conditional_expression (string) @s) @e
]]

local function device_name(n)
	n = n:lower()
	return n == "device" or n == "dev" or n:match("_device$") ~= nil or n:match("^device_") ~= nil
end

-- Start bytes of the strings the code uses as devices (certain), and of the strings
-- other rules own (comparisons, the device argument of autocast/GradScaler).
local function device_uses(ctx, path, map)
	local heads = {}
	for _i, m in ipairs(ctx.query(path, HEADS) or {}) do
		local k = m.e.start_byte .. ":" .. m.e.end_byte
		heads[k] = heads[k] or {}
		table.insert(heads[k], m.s)
	end
	local certain, skip, used, assigns = {}, {}, {}, {}
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
			if AMP_FUNCS[fname] then
				if m.v.type == "string" then skip[m.v.start_byte] = true end
			elseif (name and DEVICE_FUNCS[name]) or (m.f.type == "attribute" and DEVICE_METHODS[fname]) then
				mark(m.v)
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
		elseif m.lhs then
			assigns[#assigns + 1] = m
		end
	end
	for _i, a in ipairs(assigns) do
		if (a.lhs.type == "identifier" or a.lhs.type == "attribute")
			and (used[a.lhs.text] or device_name(last_name(a.lhs.text))) then
			mark(a.v)
		end
	end
	return certain, skip
end

-- Device strings: {node=string, edits only where the string is used as a device: the
-- argument of torch.device(), .to(), set_device(), device=, map_location=, the default of
-- a --device option, or the value assigned to a variable that is used as one}.
function cuda.device_strings(ctx, path, map)
	local out = {}
	local certain, skip = device_uses(ctx, path, map)
	for _i, s in ipairs(py.strings(ctx, path) or {}) do
		local inner, at = refs.string_inner(s.node)
		if not skip[s.node.start_byte] and cuda.device_string(inner) then
			local site = {
				file = path, node = s.node,
				message = _("The device string {text} names an NVIDIA GPU.", { text = s.node.text }),
				suggestion = _("Write 'npu' instead of 'cuda' (e.g. 'npu:0'); torch_npu registers the 'npu' device type."),
			}
			if certain[s.node.start_byte] then
				site.edits = { refs.edit(at, 4, "npu") }
			else
				site.fix_message = _("The string {text} looks like a CUDA device, but ferry cannot tell that the code uses it as one.",
					{ text = s.node.text })
				site.fix_suggestion = _("If it names the device, write 'npu' instead of 'cuda'; if it is text for people, leave it.")
			end
			out[#out + 1] = site
		end
	end
	return out
end

---------------------------------------------------------------------------------------
-- branches on the device type

local BRANCHES = [[
(comparison_operator (string) @s) @cmp
(attribute object: (_) @obj attribute: (identifier) @a (#eq? @a "is_cuda")) @attr
(assignment left: (attribute object: (_) @setobj attribute: (identifier) @set (#eq? @set "is_cuda")))
(class_definition body: (block (expression_statement (assignment left: (identifier) @cls (#eq? @cls "is_cuda")))))
(class_definition body: (block (function_definition name: (identifier) @cls (#eq? @cls "is_cuda"))))
(class_definition body: (block (decorated_definition definition: (function_definition name: (identifier) @cls (#eq? @cls "is_cuda")))))
]]

local function cuda_string(inner)
	return inner == "cuda" or inner:match("^cuda:%d+$") ~= nil
end

-- device.type == 'cuda', 'cuda' in str(device), t.is_cuda. Comparisons are rewritten when
-- the other side is clearly a device (a .type attribute or a name with "device" in it);
-- .is_cuda becomes .is_npu unless the file assigns an is_cuda attribute of its own. An
-- object whose is_cuda the file sets (`self.is_cuda = ...`), and `self` in a file whose
-- class defines is_cuda, hold the code's own flag, not Tensor.is_cuda: not reported.
function cuda.device_branches(ctx, path)
	local out, own_attr, own_obj = {}, false, {}
	local ms = ctx.query(path, BRANCHES) or {}
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
			if cuda_string(inner) then
				local c = m.cmp
				local rest = c.text:sub(1, m.s.start_byte - c.start_byte) .. " " .. c.text:sub(m.s.end_byte - c.start_byte + 1)
				local devicey = rest:lower():find("device", 1, true) or rest:find("%.%s*type%f[^%w_]")
				local site = {
					file = path, node = c,
					message = _("`{code}` is false on an NPU, so this CUDA-only branch will be skipped.", { code = c.text }),
					suggestion = _("Compare with 'npu' instead, or test for both device types if the code must still run on GPUs."),
				}
				if devicey then
					site.edits = { refs.edit(at, 4, "npu") }
				else
					site.fix_message = _("`{code}` compares with 'cuda', but ferry cannot tell that the other side is a device.",
						{ code = c.text })
				end
				out[#out + 1] = site
			end
		elseif m.attr and not own_obj[m.obj.text] then
			local site = {
				file = path, node = m.attr,
				message = _("`{code}` is False for tensors on an NPU.", { code = m.attr.text }),
				suggestion = _("Use `.is_npu` (available after `import torch_npu`) or check `tensor.device.type`."),
			}
			if not own_attr then
				site.edits = { py.replace(m.a, "is_npu") }
			else
				site.fix_message = _("`{code}` may be the code's own attribute: the file assigns an `is_cuda` attribute.",
					{ code = m.attr.text })
			end
			out[#out + 1] = site
		end
	end
	table.sort(out, by_start)
	return out
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

-- Uses of torch.cuda.X. Written out (torch.cuda.X, or th.cuda.X with torch imported as
-- th): rewritten in place when the table has an NPU equivalent. Written through an
-- import (tc.X with `import torch.cuda as tc`, `from torch import cuda`, `from
-- torch.cuda import X`): the import is rewritten instead, when every use of that name
-- has a plain torch.npu equivalent; the uses stay as they are. Names without an
-- equivalent stay for a human.
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
				if literal and plain then
					edits = { refs.edit(r.node.start_byte + #lit_head + 1, 4, "npu") }
				elseif literal and (e.status == "supported" or e.rename) and r.node.text == r.text
					and target:gsub("^torch_npu%.npu%.", "torch.npu."):sub(1, 10) == "torch.npu." then
					-- the whole name changes (enable_cuda_sanitizer -> enable_npu_sanitizer);
					-- the head keeps the file's spelling of torch (th.npu...)
					local t = target:gsub("^torch_npu%.npu%.", "torch.npu.")
					edits = { refs.edit(r.node.start_byte + #lit_head, #r.text - #lit_head, t:sub(6)) }
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
					fix_message = (not literal and not plain) and _("`{text}` ({api}) has no plain torch.npu counterpart, so its import cannot simply be renamed.", a) or nil,
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
		if ok and #edits > 0 then
			site.edits = edits
		else
			site.fix_message = _("`{code}` imports torch.cuda, and some of what it binds has no plain torch.npu counterpart.", { code = text })
			site.suggestion = _("Fix or remove the uses reported without an automatic fix, then import from torch.npu (after `import torch_npu`).")
		end
		out[#out + 1] = site
	end
	table.sort(out, by_start)
	return out
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
	local function module_edit(stmt)
		local m = mods[stmt.start_byte]
		if m and m.mod.text:sub(1, 14) == "torch.cuda.amp" and not m.mod.text:sub(15, 15):match("[%w_]") then
			return { refs.edit(m.mod.start_byte, 10, "torch_npu.npu") }
		end
	end
	for _i, imp in ipairs(py.imports(ctx, path) or {}) do
		local full = imp.full or imp.module
		local node = imp.node
		if imp.name and (imp.module == "torch.cuda.amp" or imp.module:match("^torch%.cuda%.amp%.")) then
			out[#out + 1] = {
				file = path, node = node,
				message = _("`{name}` is imported from torch.cuda.amp, the CUDA mixed-precision module.", { name = full }),
				suggestion = _("Import it from `torch.npu.amp` instead (after `import torch_npu`), or use `torch.autocast('npu')` and `torch.npu.amp.GradScaler()`."),
				key = full,
				edits = module_edit(node),
			}
		elseif imp.alias and (imp.module == "torch.cuda.amp" or imp.module:match("^torch%.cuda%.amp%.")) then
			out[#out + 1] = {
				file = path, node = node, only = "fix", key = full,
				message = _("`{name}` is imported as `{alias}`: CUDA mixed precision.", { name = full, alias = imp.alias }),
				suggestion = _("Import it from `torch_npu.npu.amp` instead; the code that uses `{alias}` stays as it is.", { alias = imp.alias }),
				edits = module_edit(node),
			}
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
			out[#out + 1] = {
				file = path, node = r.node,
				message = _("`{api}` is CUDA mixed precision.", { api = r.text }),
				suggestion = _("Use `torch.npu.amp.{name}` (after `import torch_npu`); it takes the same arguments.", { name = sub }),
				edits = { refs.edit(r.node.start_byte + 6, 4, "npu") },
			}
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
		local fname = last_name(m.f.text)
		if AMP_FUNCS[fname] and (not m.k or m.k.text == "device_type" or m.k.text == "device") then
			local inner, at = refs.string_inner(m.s)
			if inner == "cuda" then
				out[#out + 1] = {
					file = path, node = m.call,
					message = _("`{name}` is created for the 'cuda' device.", { name = fname }),
					suggestion = _("Pass 'npu' as the device type."),
					edits = { refs.edit(at, 4, "npu") },
				}
			end
		end
	end
	table.sort(out, by_start)
	return out
end

---------------------------------------------------------------------------------------
-- Megatron-LM / MindSpeed projects (megatron.json)

-- The project's Megatron facts when it is a Megatron-LM or MindSpeed project (a
-- megatron/ package, a pretrain_gpt.py-style entry script, or code importing megatron
-- or mindspeed): {keep = {name -> entry}, adaptor = entry, mindspeed = imported}; else nil.
-- Worked out once per run: the detectors ask for every file, and the answer reads the
-- whole project (asking per file made a check quadratic in the project's size).
local megatron_of = setmetatable({}, { __mode = "k" })

local function find_megatron(ctx)
	local facts = ctx.data("megatron")
	local found, mindspeed = false, false
	for _i, m in ipairs(facts.markers) do
		if m.kind == "folder" and #ctx.files("^" .. m.name:gsub("%p", "%%%0") .. ".*%.py$") > 0 then found = true end
		if m.kind == "entry" and #ctx.files("^" .. m.name:gsub("%p", "%%%0") .. "$") > 0 then found = true end
	end
	for _i, path in ipairs(ctx.python_files()) do
		local text = ctx.read(path) or ""
		for _i, m in ipairs(facts.markers) do
			if m.kind == "import" and (text:find("import " .. m.name, 1, true) or text:find("from " .. m.name, 1, true)) then
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
-- 'ncclep', 'gtp_remat_nccl_ub') are not backends.
local BACKENDS = { nccl = true, gloo = true, mpi = true, ucc = true, hccl = true }
local BACKEND_DEVICES = { cpu = true, cuda = true, npu = true, meta = true }
local function backend_string(inner)
	local has = false
	for item in (inner .. ","):gmatch("([^,]*),") do
		local dev, name = item:match("^%s*([%a_]+):([%a_]+)%s*$")
		if not dev then name = item:match("^%s*([%a_]+)%s*$") end
		if not name or not BACKENDS[name] or (dev and not BACKEND_DEVICES[dev]) then return false end
		has = has or name == "nccl"
	end
	return has
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
	for _i, s in ipairs(py.strings(ctx, path) or {}) do
		local inner, at = refs.string_inner(s.node)
		if backend_string(inner) and not keys[s.node.start_byte] then
			local edits = {}
			local i = 1
			while true do
				local a, b = inner:find("nccl", i, true)
				if not a then break end
				edits[#edits + 1] = refs.edit(at + a - 1, 4, "hccl")
				i = b + 1
			end
			i = 1
			while inner ~= "nccl" do
				local a, b = inner:find("cuda", i, true)
				if not a then break end
				edits[#edits + 1] = refs.edit(at + a - 1, 4, "npu")
				i = b + 1
			end
			table.sort(edits, function(x, y) return x.start_byte < y.start_byte end)
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
	return out
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
	for _i, s in ipairs(py.strings(ctx, path) or {}) do
		local inner, at = refs.string_inner(s.node)
		local e = is_gpu_var(inner) and entry(inner)
		if e then out[#out + 1] = env_site(path, inner, e, at, not messages[s.node.start_byte], { node = s.node }) end
	end
	return env_keep(ctx, out)
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
	return env_keep(ctx, out)
end

---------------------------------------------------------------------------------------
-- import torch_npu / transfer_to_npu

local TOP_IMPORTS = [[
(module (import_statement) @imp)
(module (import_from_statement) @from)
(module (future_import_statement) @future)
(module (if_statement condition: (comparison_operator (identifier) @n (string) @s) (#eq? @n "__name__")) @main)
]]

-- The file's top-level imports: {torch_npu=, transfer=, anchor=, before=, main=}:
-- torch_npu / transfer_to_npu already imported; the statement after which
-- `import torch_npu` goes (a plain `import torch` that comes before every other torch
-- import), or else the torch import before which it goes; main: an entry script.
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
			if t:match("^import .*%f[%w_]torch_npu%f[^%w_]") or t:match("^from torch_npu[%s%.]") then
				plan.torch_npu = true
				if t:match("transfer_to_npu") then plan.transfer = true end
			end
			local torchy = (m.imp and (t:match("^import torch%f[^%w_]") or t:match(",%s*torch%f[^%w_]")))
				or (m.from and t:match("^from torch[%s%.]"))
			if torchy and not plan.anchor and not plan.before then
				local plain = t:match("^import torch%s*$") or t:match("^import torch as [%a_][%w_]*%s*$")
				if plain then plan.anchor = st else plan.before = st end
			end
		end
	end
	return plan
end

-- The site inserting `import torch_npu` (and, with transfer, the transfer_to_npu import)
-- into one file, or nil when nothing is to be inserted. Keeps the file's line endings.
function cuda.insert_import(ctx, path, plan, transfer)
	local text = ctx.read(path)
	if not text or not plan then return nil end
	local lines = {}
	if not plan.torch_npu then lines[#lines + 1] = "import torch_npu" end
	if transfer and not plan.transfer then lines[#lines + 1] = "from torch_npu.contrib import transfer_to_npu" end
	if #lines == 0 or not (plan.anchor or plan.before) then return nil end
	local st = plan.anchor or plan.before
	local at, eol, prefix
	if plan.anchor then
		local nl = text:find("\n", st.end_byte + 1, true)
		if nl then
			at = nl
			eol = text:sub(nl - 1, nl - 1) == "\r" and "\r\n" or "\n"
			prefix = ""
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
		prefix = ""
	end
	local ins = prefix .. table.concat(lines, eol) .. eol
	if plan.anchor and not text:find("\n", st.end_byte + 1, true) then ins = prefix .. table.concat(lines, eol) end
	return {
		file = path, line = st.line, col = st.col, end_line = st.line, end_col = st.col + #(st.text:match("^[^\n]*")),
		key = transfer and "transfer_to_npu" or "torch_npu",
		edits = { { start_byte = at, end_byte = at, text = ins } },
	}
end

return cuda
