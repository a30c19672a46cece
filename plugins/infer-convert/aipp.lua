-- infer-convert.aipp: the image pre-processing of the project (torchvision ToTensor +
-- Normalize, the crop or resize, the channel order) as a static AIPP configuration for
-- ATC (scripts/aipp.cfg, --insert_op_conf), so the normalisation runs on the NPU inside
-- the offline model. Facts and the formula: plugins/data/aipp.json.

local export = require("export")

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

-- The text between the parenthesis at open (an index of "(") and its match.
local function balanced(text, open)
	local depth = 0
	for i = open, math.min(#text, open + 2000) do
		local ch = text:sub(i, i)
		if ch == "(" then depth = depth + 1 elseif ch == ")" then
			depth = depth - 1
			if depth == 0 then return text:sub(open + 1, i - 1) end
		end
	end
	return nil
end

-- The first Normalize(mean, std) of three channels: {file, line, mean, std}.
local function find_normalize(ctx, files, consts)
	for _i, path in ipairs(files) do
		local text = ctx.read(path) or ""
		local from = 1
		while true do
			local s, e = text:find("Normalize%s*%(", from)
			if not s then break end
			from = e + 1
			local args = balanced(text, e)
			if args then
				local mean, std
				for k, part in ipairs(split_args(args)) do
					local key, value = part:match("^%s*([%a_]+)%s*=%s*(.-)%s*$")
					if key == "mean" then mean = list_value(value, consts)
					elseif key == "std" then std = list_value(value, consts)
					elseif not key and k == 1 then mean = list_value(part:match("^%s*(.-)%s*$"), consts)
					elseif not key and k == 2 then std = list_value(part:match("^%s*(.-)%s*$"), consts) end
				end
				if mean and std and #mean == 3 and #std == 3 then
					local line = select(2, text:sub(1, s):gsub("\n", "")) + 1
					return { file = path, line = line, mean = mean, std = std, text = text }
				end
			end
		end
	end
	return nil
end

-- The image size the model takes: the export's dummy input (N, C, H, W), else the last
-- CenterCrop / Resize((h, w)) of the pre-processing file.
local function image_size(ctx, files, norm)
	for _i, path in ipairs(files) do
		for _j, e in ipairs(export.calls(ctx, path)) do
			if e.shape and #e.shape == 4 and e.shape[2] == 3 then
				return e.shape[4], e.shape[3], e
			end
		end
	end
	local w, h
	for a, b in norm.text:gmatch("CenterCrop%s*%(%s*%(?%s*(%d+)%s*,?%s*(%d*)") do
		h, w = tonumber(a), tonumber(b ~= "" and b or a)
	end
	if not w then
		for a, b in norm.text:gmatch("Resize%s*%(%s*[%(%[]%s*(%d+)%s*,%s*(%d+)") do
			h, w = tonumber(a), tonumber(b)
		end
	end
	return w, h, nil
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

local function config_text(norm, w, h, order)
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
		o[#o + 1] = "    # FILL IN: the model's input width and height were not found in the code; put them in"
		o[#o + 1] = "    # place of <width> and <height> (atc cannot read this file until you do)"
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
	description = _("Finds the image normalisation of the project (torchvision Normalize with its mean and std, after ToTensor), the model's input size (the ONNX export's dummy input, else CenterCrop or Resize) and the channel order (OpenCV without a BGR-to-RGB conversion is BGR), and offers scripts/aipp.cfg: a static AIPP configuration for atc --insert_op_conf that normalises uint8 images on the NPU. Apply it with `ferry fix --plugin infer-convert.aipp --yes`; an existing scripts/aipp.cfg is never overwritten."),
	triggers = { "Normalize", "onnx", "imread", "BGR2RGB" },
	run = function(ctx)
		if ctx.read(PATH) then return end
		local files = ctx.python_files()
		local norm = find_normalize(ctx, files, constants(ctx, files))
		if not norm then return end
		local w, h, e = image_size(ctx, files, norm)
		local order = channel_order(ctx, files)
		local model = e and e.file or "model.onnx"
		local a = { file = norm.file, line = norm.line, path = PATH, order = order, model = model,
			size = (w and h) and string.format("%dx%d", w, h) or nil,
			mean = string.format("%s, %s, %s", num(norm.mean[1]), num(norm.mean[2]), num(norm.mean[3])),
			std = string.format("%s, %s, %s", num(norm.std[1]), num(norm.std[2]), num(norm.std[3])) }
		ctx.report{
			file = PATH, key = PATH,
			message = a.size
				and _("The image pre-processing at {file}:{line} (mean {mean}, std {std}, {size} {order} images) can run on the NPU as AIPP: {path} would hold its static configuration.", a)
				or _("The image pre-processing at {file}:{line} (mean {mean}, std {std}, {order} images whose size was not found in the code) can run on the NPU as AIPP: {path} would hold its static configuration, with the image width and height (src_image_size_w, src_image_size_h) left for you to fill in.", a),
			suggestion = a.size
				and _("Run `ferry fix --plugin infer-convert.aipp --yes` to write it (one checkpoint), then convert with `atc --model={model} ... --insert_op_conf={path}`: the model then takes uint8 {order} images and the application stops normalising them. When inference accuracy drifts from the GPU, check this DVPP/AIPP chain first (crop, resize, channel order, mean and std), then compare operators with a dump.", a)
				or _("Run `ferry fix --plugin infer-convert.aipp --yes` to write it (one checkpoint), replace <width> and <height> in {path} by the model's input width and height (the lines marked FILL IN), then convert with `atc --model={model} ... --insert_op_conf={path}`: the model then takes uint8 {order} images and the application stops normalising them. When inference accuracy drifts from the GPU, check this DVPP/AIPP chain first (crop, resize, channel order, mean and std), then compare operators with a dump.", a),
			edits = { { start_byte = 0, end_byte = 0, text = config_text(norm, w, h, order) } },
		}
	end,
}
