-- atc: the atc command line that converts an ONNX model, in the dynamic-shape form its
-- inputs need. One rule for the ingested models (infer-convert.onnx_model) and the
-- exports found in code (infer-convert.atc_command); the rule and the facts behind it
-- are plugins/data/atc.json "dynamic_shapes", each with its source:
--
--   no dynamic dimension                      --input_shape with the fixed sizes
--   only dimension 1 (the batch) dynamic      -1 there, --dynamic_batch_size
--   only height and width of 4-D inputs       -1 there, --input_format=NCHW, --dynamic_image_size
--   any other dynamic dimension               --input_format=ND, -1 for each, --dynamic_dims
--                                             (up to dims.max_dims of them; beyond that, ranges
--                                             lo~hi in --input_shape where the SoC has them)
--
--   local atc = require("atc")
--   local cmd, notes, form = atc.command(ctx, { model = "m.onnx", soc = "Ascend310P3",
--       inputs = { { name = "input_ids", dims = { "batch", "sequence" } } } })
--     dims: integers are fixed sizes; strings (symbolic names) and negative numbers are
--     dynamic; dims = nil when the rank is unknown; elem_type: the ONNX element type code,
--     when known (an input holding token ids or masks, data/atc.json elem_types "index",
--     is never given an image layout). form is "static", "dynamic_batch_size",
--     "dynamic_image_size", "dynamic_dims" or "shape_range". o.placeholder: the
--     --input_shape text to print when no input is known. The example sizes of
--     --dynamic_dims are explained in a note, per symbolic dimension.
--   atc.input_text(ctx, vi, typed)   "input_ids[batch,sequence]", with typed
--                                    "input_ids int64[batch,sequence]"
--   atc.model_name(artifact)         "ONNX model 'label' (artifact 3)", translated

local words = require("words")

local atc = {}

local function is_dynamic(d) return type(d) ~= "number" or d < 0 end

-- A shell word: names made of safe characters as they are, others single-quoted.
local function word(s)
	if s:match("^[%w_./+-]+$") then return s end
	return "'" .. s:gsub("'", "'\\''") .. "'"
end

-- The element types by code (data/atc.json elem_types).
local function elem_types(ctx)
	local by = {}
	for _i, e in ipairs(ctx.data("atc").elem_types) do by[e.code] = e end
	return by
end

-- Can the input hold an image: 4-D, and not of a type that holds ids or masks?
local function image_input(types, vi)
	local t = vi.elem_type and types[vi.elem_type]
	return vi.dims ~= nil and #vi.dims == 4 and not (t and t.index)
end

-- Which form the inputs need (see the header) and the list of dynamic dimensions.
local function form_of(inputs, max_dims, types)
	local dyn, batch_only, image_only = {}, true, true
	for i, vi in ipairs(inputs) do
		local at = {}
		for p, d in ipairs(vi.dims or {}) do
			if is_dynamic(d) then
				dyn[#dyn + 1] = { input = i, pos = p, name = type(d) == "string" and d or nil }
				at[p] = true
				if p ~= 1 then batch_only = false end
			end
		end
		if next(at) and not (image_input(types, vi) and at[3] and at[4] and not at[1] and not at[2]) then image_only = false end
	end
	if #dyn == 0 then return "static", dyn end
	if batch_only then return "dynamic_batch_size", dyn end
	if image_only then return "dynamic_image_size", dyn end
	return #dyn <= max_dims and "dynamic_dims" or "shape_range", dyn
end

-- "batch = 1/4/8", one per dynamic dimension (once per symbolic name; an unnamed one as
-- input[axis]): the example sizes the --dynamic_dims profiles give it.
local function example_sizes(facts, inputs, dyn)
	local out, seen = {}, {}
	for _i, d in ipairs(dyn) do
		local label = d.name or string.format("%s[%d]", inputs[d.input].name, d.pos - 1)
		if not seen[label] then
			seen[label] = true
			local vals = {}
			for k = 1, #facts.dims.other_values do
				vals[k] = tostring(d.pos == 1 and facts.dims.batch_values[k] or facts.dims.other_values[k])
			end
			out[#out + 1] = label .. " = " .. table.concat(vals, "/")
		end
	end
	return out
end

-- The atc command (a string), notes for the reader (a list) and the form (see the header).
function atc.command(ctx, o)
	local facts = ctx.data("atc").dynamic_shapes
	local model = o.model or "model.onnx"
	local out = model:gsub("%.onnx$", "")
	local parts = { "atc", "--model=" .. word(model), "--framework=5", "--output=" .. word(out),
		"--soc_version=" .. (o.soc or "<SoC, e.g. Ascend310P3>") }
	local notes = {}
	local inputs = o.inputs or {}
	local types = elem_types(ctx)
	local form, dyn = form_of(inputs, facts.dims.max_dims, types)
	local no_range = o.soc and o.soc:match(facts.range.no_range_soc)
	if form == "shape_range" and no_range then form = "dynamic_dims" end
	local all4 = #inputs > 0
	for _i, vi in ipairs(inputs) do
		if not image_input(types, vi) then all4 = false end
	end
	if form == "dynamic_dims" then
		parts[#parts + 1] = "--input_format=ND"
	elseif form == "dynamic_image_size" or all4 then
		parts[#parts + 1] = "--input_format=NCHW"
	end
	local shapes, unknown = {}, {}
	for _i, vi in ipairs(inputs) do
		if vi.dims then
			local dims = {}
			for p, d in ipairs(vi.dims) do
				if not is_dynamic(d) then
					dims[p] = tostring(math.tointeger(d) or d)
				elseif form == "shape_range" then
					dims[p] = p == 1 and ("1~" .. facts.dims.batch_values[#facts.dims.batch_values])
						or ("1~" .. facts.dims.other_values[#facts.dims.other_values])
				else
					dims[p] = "-1"
				end
			end
			shapes[#shapes + 1] = vi.name .. ":" .. table.concat(dims, ",")
		else
			shapes[#shapes + 1] = vi.name .. ":<dims>"
			unknown[#unknown + 1] = vi.name
		end
	end
	if #shapes == 0 and o.placeholder then shapes[1] = o.placeholder end
	if #shapes > 0 then parts[#parts + 1] = '--input_shape="' .. table.concat(shapes, ";") .. '"' end
	if form == "dynamic_batch_size" then
		parts[#parts + 1] = '--dynamic_batch_size="' .. facts.batch.profiles .. '"'
		notes[#notes + 1] = _("the batch dimension is dynamic: list the batch sizes you will serve in --dynamic_batch_size")
	elseif form == "dynamic_image_size" then
		parts[#parts + 1] = '--dynamic_image_size="' .. facts.image.profiles .. '"'
		notes[#notes + 1] = _("height and width are dynamic: list the resolutions you will serve (height,width;…) in --dynamic_image_size")
	elseif form == "dynamic_dims" then
		local profiles = {}
		for k = 1, #facts.dims.other_values do
			local vals = {}
			for j, d in ipairs(dyn) do
				vals[j] = tostring(d.pos == 1 and facts.dims.batch_values[k] or facts.dims.other_values[k])
			end
			profiles[k] = table.concat(vals, ",")
		end
		parts[#parts + 1] = '--dynamic_dims="' .. table.concat(profiles, ";") .. '"'
		notes[#notes + 1] = _("{n} dynamic dimensions, not only the batch: each --dynamic_dims profile gives one size per -1 of --input_shape, in order; give a dimension shared by several inputs the same size in a profile and list the sizes you will serve",
			{ n = #dyn })
		notes[#notes + 1] = _("the sizes in --dynamic_dims are examples for the model's dynamic dimensions ({dims}): replace them with the sizes you will serve",
			{ dims = words.join(example_sizes(facts, inputs, dyn), ";") })
		if #dyn > facts.dims.max_dims then
			notes[#notes + 1] = _("a profile may hold at most {max} dimensions and {soc} has no shape ranges: fix some dimensions",
				{ max = facts.dims.max_dims, soc = o.soc })
		elseif not no_range then
			notes[#notes + 1] = _("alternatively give ranges instead of -1 (e.g. 1~8) in --input_shape, without --dynamic_dims")
		end
	elseif form == "shape_range" then
		notes[#notes + 1] = _("{n} dynamic dimensions, more than the {max} a --dynamic_dims profile holds: the command gives ranges (lo~hi) in --input_shape; narrow them to the sizes you will serve",
			{ n = #dyn, max = facts.dims.max_dims })
	end
	if #unknown > 0 then
		notes[#notes + 1] = _("the model does not give the shape of {inputs}: fill in <dims>", { inputs = table.concat(unknown, ", ") })
	end
	local odd = {}
	for _i, vi in ipairs(inputs) do
		if vi.name:find("[:;\"]") then odd[#odd + 1] = vi.name end
	end
	if #odd > 0 then
		notes[#notes + 1] = _("the names {inputs} hold ':', which --input_shape also uses between an input's name and its sizes (torch names an input so when a forward argument is a tuple or no name is given): if atc does not find the input, export again with input_names=[...] naming every input plainly",
			{ inputs = words.join(odd) })
	end
	if not o.soc then
		notes[#notes + 1] = _("set the target SoC with `ferry config target.soc NAME` (the chip name of `npu-smi info`, prefixed with 'Ascend')")
	end
	return table.concat(parts, " "), notes, form
end

-- An input as the findings show it: its name and dims as the model gives them (symbolic
-- names kept, -1 for unknown), with typed its element type's name before the dims; its
-- name and a translated note when the model gives no shape.
function atc.input_text(ctx, vi, typed)
	if not vi.dims then return _("{name} (rank unknown)", { name = vi.name }) end
	local t = {}
	for i, d in ipairs(vi.dims) do t[i] = tostring(d) end
	local ty = typed and vi.elem_type and elem_types(ctx)[vi.elem_type]
	return vi.name .. (ty and " " .. ty.name or "") .. "[" .. table.concat(t, ",") .. "]"
end

-- How the findings name an ingested ONNX model: its label and artifact id.
function atc.model_name(a)
	return (a.label and a.label ~= "") and _("ONNX model '{label}' (artifact {id})", { label = a.label, id = tostring(a.id) })
		or _("ONNX model artifact {id}", { id = tostring(a.id) })
end

return atc
