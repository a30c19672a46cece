-- assess.torch_compile: torch.compile and the torch.compiler API.

local refs = require("refs")

-- Start bytes of the callees of calls that pass backend="eager" or "aot_eager".
local EAGER = [[
(call function: (_) @f arguments: (argument_list (keyword_argument name: (identifier) @k value: (string) @v))
 (#eq? @k "backend") (#match? @v "^[rRuU]?[\"'](aot_)?eager[\"']$"))
]]
local function eager_compiles(ctx, path)
	local out = {}
	for _i, m in ipairs(ctx.query(path, EAGER) or {}) do out[m.f.start_byte] = true end
	return out
end

-- The ifs of a file and the module-level assignments and argparse options that can make
-- their condition false by default.
local GATES = [[
(if_statement condition: (_) @cond consequence: (block) @body)
(module (expression_statement (assignment left: (identifier) @l right: (_) @v)))
((call function: (attribute attribute: (identifier) @m) arguments: (argument_list) @a) (#eq? @m "add_argument"))
]]

-- Whether an argparse option's arguments leave it false unless given on the command line:
-- a false default (False, None, 0, an empty string), or no default at all (argparse's is
-- None, False for store_true) for an option neither required nor store_false (timm's
-- `--torchcompile`, nargs='?' with default=None).
local function off_option(args)
	local default = args:match("default%s*=%s*([^,%)]+)")
	if default then
		default = default:match("^(.-)%s*$")
		return default == "False" or default == "None" or default == "0" or default == "''" or default == '""'
	end
	return not args:find("required%s*=%s*True") and not args:find("action%s*=%s*[\"']store_false[\"']")
end

-- What keeps node from running by default: it sits under `if NAME:` where every
-- module-level assignment to NAME is False (nanoGPT's sample.py: `compile = False`, set
-- otherwise only from the command line), or under `if args.NAME:` of an option that is off
-- unless given (off_option); the innermost such condition is named.
-- A text naming the setting ("`compile = False` on line 22"), or nil.
local function off_by_default(ctx, path, node)
	local ifs, assigns, options = {}, {}, {}
	for _i, m in ipairs(ctx.query(path, GATES) or {}) do
		if m.cond then ifs[#ifs + 1] = m
		elseif m.l then assigns[#assigns + 1] = m
		elseif m.a then options[#options + 1] = m.a end
	end
	-- the innermost condition first: it is the one that names what turns node on
	table.sort(ifs, function(a, b) return a.body.start_byte > b.body.start_byte end)
	for _i, g in ipairs(ifs) do
		if node.start_byte >= g.body.start_byte and node.end_byte <= g.body.end_byte then
			local cond = g.cond.text
			local name = cond:match("^[%a_][%w_]*$")
			if name then
				local last
				for _j, a in ipairs(assigns) do
					if a.l.text == name then
						if a.v.text ~= "False" then last = nil break end
						last = a
					end
				end
				if last then return _("`{name} = False` on line {line}", { name = name, line = last.l.line }) end
			end
			local dest = cond:match("^[%a_][%w_]*%.([%a_][%w_]*)$")
			if dest then
				local flag = "%-%-" .. dest:gsub("_", "[-_]")
				for _j, a in ipairs(options) do
					local t = a.text
					if (t:find("[\"']" .. flag .. "[\"']") or t:find("dest%s*=%s*[\"']" .. dest .. "[\"']")) and off_option(t) then
						return _("the option `--{dest}` on line {line}, off unless given", { dest = (dest:gsub("_", "-")), line = a.line })
					end
				end
			end
		end
	end
	return nil
end

return {
	id = "assess.torch_compile",
	phase = "assess",
	title = _("torch.compile / torch.compiler"),
	severity = "warning",
	category = "compile",
	description = _("Finds torch.compile (call or decorator) and the torch.compiler functions the vendor "
		.. "lists as unsupported on NPU (compile, reset, allow_in_graph, assume_constant_result, "
		.. "list_backends, disable). On GPUs Inductor generates Triton kernels; under transfer_to_npu "
		.. "Triton is reported unavailable, and NPU compilation goes through torch_npu's own Inductor "
		.. "backend. Migrate in eager mode first. torch.compile with backend=\"eager\" or "
		.. "\"aot_eager\" runs the model eagerly and is left alone, as are questions such as "
		.. "torch.compiler.is_compiling(). A call under `if NAME:` whose module-level NAME is only ever "
		.. "False, or under `if args.NAME:` of an option off unless given (store_true, or a default of None or False), runs only when turned on: info, no effort."),
	-- naming torch.compile or torch.compiler, however imported, spells out both words
	triggers = { { "torch", "compile" } },
	run = function(ctx)
		-- the torch.compiler members the vendor lists as unsupported (unsupported_ops.json
		-- leaves them to this check); the others (is_compiling ...) only ask a question
		local listed = {}
		for _i, e in ipairs(ctx.data("unsupported_ops").entries) do
			if e.owner == "assess.torch_compile" then listed[e.name] = true end
		end
		for _i, path in ipairs(ctx.python_files()) do
			local map = refs.aliases(ctx, path)
			local eager = nil
			for _i, r in ipairs(refs.dotted(ctx, path, map)) do
				local name = r.resolved
				if name == "torch.compile" then
					-- backend="eager"/"aot_eager" trace the model and run it eagerly: no
					-- Inductor, no Triton, nothing to migrate
					eager = eager or eager_compiles(ctx, path)
					local off = not eager[r.node.start_byte] and off_by_default(ctx, path, r.node)
					if off then
						ctx.report{
							file = path, node = r.node, severity = "info",
							message = _("`{api}` runs only when a setting turns it on, and it is off by default ({off}); turned on, it compiles the model with Inductor, which generates Triton kernels for GPUs.", { api = r.text, off = off }),
							suggestion = _("Leave it off on the NPU while migrating; revisit compilation in the tune phase with torch_npu's Inductor backend."),
						}
					elseif not eager[r.node.start_byte] then
						ctx.report{
							file = path, node = r.node,
							message = _("`{api}` compiles the model with Inductor, which generates Triton kernels for GPUs.", { api = r.text }),
							suggestion = _("Run the model eagerly first (remove or disable torch.compile), then revisit compilation in the tune phase with torch_npu's Inductor backend."),
						}
					end
				elseif listed[name] then
					ctx.report{
						file = path, node = r.node,
						message = _("`{api}` is part of torch.compiler, which the vendor lists as unsupported on NPU.", { api = r.text }),
						suggestion = _("Remove it while migrating in eager mode; revisit compilation in the tune phase."),
					}
				end
			end
		end
	end,
}
