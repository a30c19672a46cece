-- infer-convert.aipp: the image pre-processing of the project (torchvision ToTensor +
-- Normalize, the crop or resize, the channel order) as a static AIPP configuration for
-- ATC (scripts/aipp.cfg, --insert_op_conf), so the normalisation runs on the NPU inside
-- the offline model. Facts and the formula: plugins/data/aipp.json.

local export = require("export")
local inf = require("inference")
local train = require("train")
local words = require("words")

-- Calls of the file with their callee and argument list.
local CALLS = "(call function: [(identifier) (attribute)] @f arguments: (argument_list) @a) @c"

local PATH = "scripts/aipp.cfg"

-- The numbers of a literal list or tuple "(0.485, 0.456, 0.406)"; nil unless all are numbers.
local function numbers(text)
	if not text then return nil end
	local body = text:match("^%s*[%(%[](.-)[%)%]]%s*$")
	if not body then return nil end
	local out = {}
	for part in (body .. ","):gmatch("([^,]*),") do
		local p = part:match("^%s*(.-)%s*$")
		if p ~= "" then
			local n = tonumber(p)
			if not n then return nil end
			out[#out + 1] = n
		end
	end
	return #out > 0 and out or nil
end

-- Module-level constants of the project holding a literal list: IMAGENET_DEFAULT_MEAN = (...).
local function constants(ctx, files)
	local out = {}
	for _i, path in ipairs(files) do
		local text = ctx.read(path) or ""
		for name, value in text:gmatch("\n([%u_][%u%d_]*)%s*=%s*([%(%[][%d%.,%s]+[%)%]])") do
			out[name] = out[name] or numbers(value)
		end
	end
	return out
end

-- The value of an argument: a literal list, or a constant name (possibly module.NAME).
local function list_value(arg, consts)
	if not arg then return nil end
	local lit = numbers(arg)
	if lit then return lit end
	local name = arg:match("([%u_][%u%d_]*)%s*$")
	return name and consts[name] or nil
end

-- Splits "a, b=c, (d, e)" at top-level commas.
local function split_args(s)
	local out, depth, cur = {}, 0, {}
	for ch in s:gmatch(".") do
		if ch == "(" or ch == "[" then depth = depth + 1 elseif ch == ")" or ch == "]" then depth = depth - 1 end
		if ch == "," and depth == 0 then
			out[#out + 1] = table.concat(cur)
			cur = {}
		else
			cur[#cur + 1] = ch
		end
	end
	out[#out + 1] = table.concat(cur)
	return out
end

-- Training-only code of a file: the branches taken for training (`if image_set == 'train':`,
-- `if is_train:`), the functions named for it (build_train_transform) and the values
-- assigned to names saying so (train_transform = ...). Returns a function telling whether
-- a node lies inside one.
local TRAINING = [[
(if_statement condition: (_) @cond consequence: (block) @in)
(function_definition name: (identifier) @name) @in
(assignment left: (identifier) @name right: (_) @in)
]]
local function training_code(ctx, path)
	local spans = {}
	for _i, m in ipairs(ctx.query(path, TRAINING) or {}) do
		local says = m.cond and m.cond.text or m.name.text
		local negated = m.cond and (says:find("not%s") or says:find("!="))
		if says:lower():find("train") and not negated then spans[#spans + 1] = m["in"] end
	end
	return function(node)
		for _i, s in ipairs(spans) do
			if s.start_byte <= node.start_byte and node.end_byte <= s.end_byte then return true end
		end
		return false
	end
end

-- The first Normalize(mean, std) of three channels outside training-only code, else the
-- first in it (inference normalises alike): {file, line, mean, std, text}.
local function find_normalize(ctx, files, consts)
	local fallback
	for _i, path in ipairs(files) do
		local text = ctx.read(path) or ""
		local training
		for _j, m in ipairs(text:find("Normalize", 1, true) and ctx.query(path, CALLS) or {}) do
			if m.f.text:match("[%w_]+$") == "Normalize" then
				local mean, std
				for k, part in ipairs(split_args(m.a.text:sub(2, -2))) do
					local key, value = part:match("^%s*([%a_]+)%s*=%s*(.-)%s*$")
					if key == "mean" then mean = list_value(value, consts)
					elseif key == "std" then std = list_value(value, consts)
					elseif not key and k == 1 then mean = list_value(part:match("^%s*(.-)%s*$"), consts)
					elseif not key and k == 2 then std = list_value(part:match("^%s*(.-)%s*$"), consts) end
				end
				if mean and std and #mean == 3 and #std == 3 then
					training = training or training_code(ctx, path)
					local found = { file = path, line = m.c.line, mean = mean, std = std, text = text }
					if not training(m.c) then return found end
					fallback = fallback or found
				end
			end
		end
	end
	return fallback
end

-- The integers of a literal list or tuple node ("(224, 224)", "[800]"), or nil.
local function int_list(node)
	if node.type ~= "tuple" and node.type ~= "list" then return nil end
	local out = {}
	for _i, n in ipairs(numbers(node.text) or {}) do
		if n ~= math.floor(n) then return nil end
		out[#out + 1] = n
	end
	return #out > 0 and out or nil
end

-- What a resize or crop call does to the image size: "fixed", width, height for one that
-- gives every image the same size (CenterCrop(224), Resize((h, w))); "varying" for one
-- that gives each its own (a shorter side with the aspect kept, Resize(800), a max_size, a
-- list of sizes to choose from, any Random* resize or crop: augmentation); "unknown" for a
-- CenterCrop or Resize whose size is no literal; nil for a call that is none of these.
local function size_effect(name, args)
	if name:match("^Random") and (name:find("Resize") or name:find("Crop") or name:find("Size")) then
		return "varying"
	end
	if name:find("Shortest") then return "varying" end
	local first = args.pos[1] or args.kw.size
	if name == "CenterCrop" and first then
		local l = first.type == "integer" and { tonumber(first.text) } or int_list(first)
		if l and #l <= 2 then return "fixed", l[2] or l[1], l[1] end
	elseif name == "Resize" and first then
		if args.kw.max_size then return "varying" end
		if first.type == "integer" then return "varying" end
		local l = int_list(first)
		if l and #l == 2 then return "fixed", l[2], l[1] end
		if l then return "varying" end
	end
	return (name == "CenterCrop" or name == "Resize") and "unknown" or nil
end

-- The size the pre-processing of a file leaves images at: the last resize or crop outside
-- training-only code decides. Returns width, height when it is fixed; nil, nil, the call
-- node when it varies; nil when there is none or its size is no literal.
local function preprocess_size(ctx, path)
	local training, args_of, last
	local calls = ctx.query(path, CALLS) or {}
	table.sort(calls, function(x, y) return x.c.start_byte < y.c.start_byte end)
	for _i, m in ipairs(calls) do
		local name = m.f.text:match("[%w_]+$") or ""
		if name:find("Resize") or name:find("Crop") or name:find("Shortest") then
			training = training or training_code(ctx, path)
			args_of = args_of or train.all_call_args(ctx, path)
			local kind, w, h = size_effect(name, args_of(m.c))
			if kind and not training(m.c) then last = { kind = kind, w = w, h = h, node = m.c } end
		end
	end
	if not last or last.kind == "unknown" then return nil end
	if last.kind == "fixed" then return last.w, last.h end
	return nil, nil, last.node
end

-- The image size the model takes: the dummy input (N, C, H, W) of an export that deploys
-- (not in test code nor to an in-memory buffer), else the pre-processing's
-- (preprocess_size). Returns width, height, the export; or nil, nil, nil, the call that
-- makes the size vary.
local function image_size(ctx, files, norm)
	for _i, path in ipairs(files) do
		for _j, e in ipairs(export.calls(ctx, path)) do
			if e.shape and #e.shape == 4 and e.shape[2] == 3 and not e.test and not e.buffer then
				return e.shape[4], e.shape[3], e
			end
		end
	end
	local w, h, varying = preprocess_size(ctx, norm.file)
	return w, h, nil, varying
end

-- "BGR" when images come from OpenCV without a conversion to RGB anywhere in the project.
local function channel_order(ctx, files)
	local cv2, converted = false, false
	for _i, path in ipairs(files) do
		local text = ctx.read(path) or ""
		cv2 = cv2 or text:find("cv2%.imread") ~= nil
		converted = converted or text:find("BGR2RGB") ~= nil or text:find("%[%s*:%s*,%s*:%s*,%s*::%s*%-1%s*%]") ~= nil
	end
	return (cv2 and not converted) and "BGR" or "RGB"
end

local function num(x)
	local s = string.format("%.10f", x):gsub("0+$", ""):gsub("%.$", ".0")
	return s
end

-- The static AIPP configuration; varying, when given, is what the comment says makes the
-- image size vary ("`Resize(800)` at data.py:12").
local function config_text(norm, w, h, order, varying)
	-- on 0..255 pixels: ToTensor divides by 255; a Normalize already in pixel units does not
	local scale = (norm.mean[1] > 1 or norm.std[1] > 1) and 1 or 255
	local o = {
		"# AIPP configuration for atc --insert_op_conf (static AIPP), written by ferry from",
		string.format("# %s:%d: Normalize(mean=(%s, %s, %s), std=(%s, %s, %s))%s.", norm.file, norm.line,
			num(norm.mean[1]), num(norm.mean[2]), num(norm.mean[3]), num(norm.std[1]), num(norm.std[2]), num(norm.std[3]),
			scale == 255 and " after ToTensor (pixels / 255)" or ""),
		"# With it the offline model takes uint8 " .. order .. " images (NHWC) and normalises them on the NPU:",
		"# out = (pixel - mean_chn - min_chn) * var_reci_chn, so min_chn = " .. (scale == 255 and "255 * " or "") .. "mean and",
		"# var_reci_chn = 1 / (" .. (scale == 255 and "255 * " or "") .. "std). The application must no longer normalise on the host.",
		"# Channels are in the order the model was trained on (" .. order .. "); if the application feeds the",
		"# other order, set rbuv_swap_switch : true. --insert_op_conf cannot be combined with --dynamic_dims.",
		"aipp_op {",
		"    aipp_mode : static",
		"    input_format : RGB888_U8",
	}
	if w and h then
		o[#o + 1] = "    src_image_size_w : " .. w
		o[#o + 1] = "    src_image_size_h : " .. h
	else
		if varying then
			o[#o + 1] = "    # FILL IN: the pre-processing gives images no fixed size (" .. varying .. "); static AIPP takes"
			o[#o + 1] = "    # one: resize to the model's input size first and put its width and height in place of"
			o[#o + 1] = "    # <width> and <height> (atc cannot read this file until you do)"
		else
			o[#o + 1] = "    # FILL IN: the model's input width and height were not found in the code; put them in"
			o[#o + 1] = "    # place of <width> and <height> (atc cannot read this file until you do)"
		end
		o[#o + 1] = "    src_image_size_w : <width>"
		o[#o + 1] = "    src_image_size_h : <height>"
	end
	o[#o + 1] = "    csc_switch : false"
	o[#o + 1] = "    rbuv_swap_switch : false"
	for i = 0, 2 do o[#o + 1] = "    mean_chn_" .. i .. " : 0" end
	for i = 0, 2 do o[#o + 1] = "    min_chn_" .. i .. " : " .. num(scale * norm.mean[i + 1]) end
	for i = 0, 2 do o[#o + 1] = "    var_reci_chn_" .. i .. " : " .. num(1 / (scale * norm.std[i + 1])) end
	o[#o + 1] = "}"
	return table.concat(o, "\n") .. "\n"
end

return {
	id = "infer-convert.aipp",
	phase = "infer-convert",
	title = _("AIPP configuration from the image pre-processing"),
	severity = "info",
	category = "convert",
	description = _("Finds the image normalisation of the project (torchvision Normalize with its mean and std, after ToTensor), the model's input size (the dummy input of an ONNX export outside test code, else the last CenterCrop or Resize((h, w)) outside training-only code; a random, shorter-side or max_size resize leaves the size to fill in) and the channel order (OpenCV without a BGR-to-RGB conversion is BGR), and offers scripts/aipp.cfg: a static AIPP configuration for atc --insert_op_conf that normalises uint8 images on the NPU. Apply it with `ferry fix --plugin infer-convert.aipp --yes`; an existing scripts/aipp.cfg is never overwritten. Offered only when the engagement plans inference, as the migration plan says (an ONNX export to a file, an inference SoC, or `design.migration_plan.inference yes`): a training project's normalisation feeds its training loop."),
	triggers = { "Normalize", "onnx", "imread", "BGR2RGB" },
	run = function(ctx)
		-- a training project's normalisation feeds its training loop: AIPP is for an
		-- offline model, so only an engagement that plans inference (as the migration plan
		-- says) is offered one
		if ctx.read(PATH) or not inf.planned(ctx) then return end
		local files = ctx.python_files()
		local norm = find_normalize(ctx, files, constants(ctx, files))
		if not norm then return end
		local w, h, e, varying = image_size(ctx, files, norm)
		local order = channel_order(ctx, files)
		local model = e and e.file or "model.onnx"
		local a = { file = norm.file, line = norm.line, path = PATH, order = order, model = model,
			size = (w and h) and string.format("%dx%d", w, h) or nil,
			mean = string.format("%s, %s, %s", num(norm.mean[1]), num(norm.mean[2]), num(norm.mean[3])),
			std = string.format("%s, %s, %s", num(norm.std[1]), num(norm.std[2]), num(norm.std[3])),
			resize = varying and words.clip(varying.text:match("^[^\n]*"), 60),
			where = varying and string.format("%s:%d", norm.file, varying.line) }
		ctx.report{
			file = PATH, key = PATH,
			message = a.size
				and _("The image pre-processing at {file}:{line} (mean {mean}, std {std}, {size} {order} images) can run on the NPU as AIPP: {path} would hold its static configuration.", a)
				or a.resize and _("The image pre-processing at {file}:{line} (mean {mean}, std {std}, {order} images of no fixed size: `{resize}` at {where} resizes each image to a size of its own) can run on the NPU as AIPP: {path} would hold its static configuration, with the image width and height (src_image_size_w, src_image_size_h) left for you to fill in once the images are resized to one size.", a)
				or _("The image pre-processing at {file}:{line} (mean {mean}, std {std}, {order} images whose size was not found in the code) can run on the NPU as AIPP: {path} would hold its static configuration, with the image width and height (src_image_size_w, src_image_size_h) left for you to fill in.", a),
			suggestion = a.size
				and _("Run `ferry fix --plugin infer-convert.aipp --yes` to write it (one checkpoint), then convert with `atc --model={model} ... --insert_op_conf={path}`: the model then takes uint8 {order} images and the application stops normalising them. When inference accuracy drifts from the GPU, check this DVPP/AIPP chain first (crop, resize, channel order, mean and std), then compare operators with a dump.", a)
				or _("Run `ferry fix --plugin infer-convert.aipp --yes` to write it (one checkpoint), replace <width> and <height> in {path} by the model's input width and height (the lines marked FILL IN), then convert with `atc --model={model} ... --insert_op_conf={path}`: the model then takes uint8 {order} images and the application stops normalising them. When inference accuracy drifts from the GPU, check this DVPP/AIPP chain first (crop, resize, channel order, mean and std), then compare operators with a dump.", a),
			edits = { { start_byte = 0, end_byte = 0, text = config_text(norm, w, h, order,
				a.resize and string.format("`%s` at %s", a.resize, a.where)) } },
		}
	end,
}
