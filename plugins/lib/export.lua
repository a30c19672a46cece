-- export: torch.onnx.export calls and the ATC command that converts their output.
--
--   local export = require("export")
--   for _i, e in ipairs(export.calls(ctx, path)) do ... end
--     e.call, e.args ({pos=, kw=}), e.file (the output path when a literal), e.opset
--     (number, or nil when absent; e.opset_node when present; through an argparse default or
--     a module constant, e.opset_source is the node that sets it), e.input_names (list of
--     literal names or nil), e.shape (list of ints of the first input when the dummy input
--     is a literal torch.randn/rand/zeros/ones/empty/randint call, directly or through one
--     assignment), e.dynamic (set of dynamic dimension indexes of the first input, or nil)
--   export.atc(ctx, e, soc, model) -> the atc command line (string), a list of notes and
--     the model file it converts (nil when neither the code nor the model tells);
--     model, when given, is the ingested ONNX model the export writes ({artifact=, onnx=},
--     ctx.artifacts and ctx.onnx): its inputs' names, shapes and types are used, not the
--     code's

local py = require("py")
local train = require("train")
local atc = require("atc")
local words = require("words")

local export = {}

local EXPORTS = { ["torch.onnx.export"] = true, ["torch.onnx.utils.export"] = true }
local MAKERS = { randn = 1, rand = 1, zeros = 1, ones = 1, empty = 1, randint = 3 }

-- Integers of a shape given as "1, 3, 224, 224" or "(1, 3, 224, 224)"; nil otherwise.
local function ints(text)
	local t = text:gsub("^%s*[%(%[]", ""):gsub("[%)%]]%s*$", "")
	local out = {}
	for part in (t .. ","):gmatch("([^,]*),") do
		local p = part:match("^%s*(.-)%s*$")
		if p ~= "" then
			local n = tonumber(p)
			if not n or n ~= math.floor(n) or n < 0 then return nil end
			out[#out + 1] = math.floor(n)
		end
	end
	return #out > 0 and out or nil
end

-- The shape of a literal tensor-making call (torch.randn(1, 3, 224, 224, device=...)).
local function shape_of(ctx, path, node, args_of, map)
	if node.type ~= "call" then return nil end
	local fn = node.text:match("^([%w_%.%s]+)%(")
	local d = fn and py.dotted(fn)
	if not d then return nil end
	d = py.expand(map, d)
	local maker = d:match("^torch%.([%w_]+)$")
	local at = maker and MAKERS[maker]
	if not at then return nil end
	local a = args_of(node)
	if a.kw.size then return ints(a.kw.size.text) end
	if at == 3 then return a.pos[3] and ints(a.pos[3].text) end
	if #a.pos == 1 and (a.pos[1].type == "tuple" or a.pos[1].type == "list") then return ints(a.pos[1].text) end
	local texts = {}
	for _i, p in ipairs(a.pos) do texts[#texts + 1] = p.text end
	return ints(table.concat(texts, ","))
end

-- String literals of a list/tuple literal: ["input", "mask"] -> {"input", "mask"}.
local function names_of(node)
	if not node or (node.type ~= "list" and node.type ~= "tuple") then return nil end
	local out = {}
	for s in node.text:gmatch("(['\"][^'\"]*['\"])") do
		out[#out + 1] = py.string_value(s)
	end
	return #out > 0 and out or nil
end

-- Dynamic dimensions of one input in a literal dynamic_axes dict: {0: "batch"} or [0, 2].
local function dynamic_of(node, name)
	if not node or node.type ~= "dictionary" or not name then return nil end
	local body = node.text
	for _i, q in ipairs({ '"', "'" }) do
		local s, e = body:find(q .. name:gsub("%p", "%%%0") .. q .. "%s*:%s*", 1, false)
		if s then
			local rest = body:sub(e + 1)
			local inner = rest:match("^(%b{})") or rest:match("^(%b[])")
			if not inner then return nil end
			local dims = {}
			if inner:sub(1, 1) == "{" then
				for n in inner:gmatch("(%d+)%s*:") do dims[tonumber(n)] = true end
			else
				for n in inner:gmatch("%d+") do dims[tonumber(n)] = true end
			end
			return dims
		end
	end
	return nil
end

-- The integer an opset_version argument that is no literal stands for, and the node that
-- sets it: the default of an argparse option (`args.opset` from
-- `add_argument("--opset", type=int, default=17)`, or dest="opset") or a module-level
-- constant (`OPSET = 17`). nil when it cannot be told from the file.
local ADD_ARGUMENT = '((call function: (attribute attribute: (identifier) @m) arguments: (argument_list) @a) @c (#eq? @m "add_argument"))'
local MODULE_CONSTANT = "(module (expression_statement (assignment left: (identifier) @l right: (integer) @v)))"
local function opset_source(ctx, path, node, args_of)
	if node.type == "attribute" then
		local name = node.text:match("^[%a_][%w_]*%s*%.%s*([%a_][%w_]*)$")
		if not name then return nil end
		for _i, m in ipairs(ctx.query(path, ADD_ARGUMENT) or {}) do
			local a = args_of(m.c)
			local dest = a.kw.dest and py.string_value(a.kw.dest.text)
			if not dest then
				for _i, opt in ipairs(a.pos) do
					local v = opt.type == "string" and py.string_value(opt.text)
					if v and v:sub(1, 2) == "--" then dest = v:sub(3):gsub("%-", "_") break end
				end
			end
			local d = a.kw.default
			if dest == name and d and d.type == "integer" then return tonumber(d.text), d end
		end
	elseif node.type == "identifier" then
		local found
		for _i, m in ipairs(ctx.query(path, MODULE_CONSTANT) or {}) do
			if m.l.text == node.text then found = m.v end
		end
		if found then return tonumber(found.text), found end
	end
	return nil
end

-- Every torch.onnx.export call of a file (see the header for the fields).
function export.calls(ctx, path)
	local map = py.aliases(ctx, path) or {}
	local out, args_of, assigns = {}, nil, nil
	for _i, c in ipairs(py.calls(ctx, path, EXPORTS, map) or {}) do
		args_of = args_of or train.all_call_args(ctx, path)
		local a = args_of(c.call)
		local e = { call = c.call, func = c.func, args = a, path = path }
		local f = a.kw.f or a.pos[3]
		e.file = f and f.type == "string" and py.string_value(f.text) or nil
		e.opset_node = a.kw.opset_version
		e.opset = e.opset_node and tonumber(e.opset_node.text) or nil
		if e.opset_node and not e.opset then
			e.opset, e.opset_source = opset_source(ctx, path, e.opset_node, args_of)
		end
		-- a name passed for an argument stands for the value last assigned to it before the
		-- call (`dynamic_axes = {...}` then `dynamic_axes=dynamic_axes`)
		local function resolved(node)
			if not node or node.type ~= "identifier" then return node end
			if not assigns then
				assigns = {}
				for _i, m in ipairs(ctx.query(path, "(assignment left: (identifier) @l right: (_) @r)") or {}) do
					assigns[#assigns + 1] = m
				end
			end
			local best
			for _i, m in ipairs(assigns) do
				if m.l.text == node.text and m.l.start_byte < c.call.start_byte
					and (not best or m.l.start_byte > best.l.start_byte) then best = m end
			end
			return best and best.r or nil
		end
		e.input_names = names_of(resolved(a.kw.input_names))
		e.dynamic_node = a.kw.dynamic_axes
		local input = a.kw.args or a.pos[2]
		if input and input.type == "tuple" then
			local t = input
			input = nil
			for _i, m in ipairs(ctx.query(path, "(tuple . (_) @first) @t") or {}) do
				if m.t.start_byte == t.start_byte then input = m.first break end
			end
		end
		input = resolved(input)
		if input then e.shape = shape_of(ctx, path, input, args_of, map) end
		local axes = resolved(e.dynamic_node)
		e.dynamic = dynamic_of(axes, e.input_names and e.input_names[1])
		-- dynamic axes ferry cannot read (built by a function, a comprehension): the static
		-- shape below would serve one size only
		e.dynamic_unknown = e.dynamic_node ~= nil and e.dynamic_node.text ~= "None" and not e.dynamic
			and not (axes and axes.type == "dictionary")
		e.training = a.kw.training and a.kw.training.text or nil
		e.folding = a.kw.do_constant_folding and a.kw.do_constant_folding.text or nil
		out[#out + 1] = e
	end
	return out
end

-- The atc command converting an export's output for a SoC, and notes for the reader
-- (the dynamic-shape form follows plugins/lib/atc.lua).
function export.atc(ctx, e, soc, model)
	local inputs, notes = {}, {}
	if model then
		inputs = model.onnx.inputs
		local shown = {}
		for i, vi in ipairs(inputs) do shown[i] = atc.input_text(ctx, vi, true) end
		notes[#notes + 1] = _("the inputs are those of the ingested {what}: {inputs}",
			{ what = atc.model_name(model.artifact), inputs = words.join(shown) })
	elseif e.shape and e.input_names then
		local dims = {}
		for i, n in ipairs(e.shape) do
			dims[i] = (e.dynamic and e.dynamic[i - 1]) and -1 or n
		end
		inputs[1] = { name = e.input_names[1], dims = dims }
	end
	local file = e.file or (model and model.onnx.file)
	local cmd, more = atc.command(ctx, { model = file, soc = soc, inputs = inputs,
		placeholder = #inputs == 0 and "<input name>:<dims>" or nil })
	if not file then notes[#notes + 1] = _("replace model.onnx by the file the export writes") end
	if #inputs == 0 then
		notes[#notes + 1] = _("fill in --input_shape with each input's name and sizes (name:d1,d2,…, inputs separated by ';'; input_names= in the export fixes the names), or ingest the model this export writes (`ferry ingest onnx FILE`) and the command takes them from it")
	elseif not model and #e.input_names > 1 then
		notes[#notes + 1] = _("add the shapes of the other inputs ({inputs}) to --input_shape, separated by ';'", { inputs = table.concat(e.input_names, ", ", 2) })
	end
	if e.dynamic_unknown and not model then
		notes[#notes + 1] = _("the export declares dynamic axes ({axes}) that ferry cannot read: mark those dimensions -1 in --input_shape and add --dynamic_batch_size or --dynamic_dims, or the .om serves this one shape only",
			{ axes = e.dynamic_node.text:match("^[^\n]*") })
	end
	for _i, n in ipairs(more) do notes[#notes + 1] = n end
	return cmd, notes, file
end

return export
