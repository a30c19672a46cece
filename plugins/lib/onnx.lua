-- onnx: a minimal reader of ONNX model files (protobuf) for the infer-convert checks.
--
--   local onnx = require("onnx")
--   local m, why = onnx.read(bytes)
--     m.opsets  {[domain] = version} ("" is the default ai.onnx domain)
--     m.ops     list of {op_type=, domain=, count=} sorted by count (subgraphs included)
--     m.nodes   number of nodes
--     m.inputs  list of {name=, dims = {n or "name" or "?"}} — graph inputs that are not
--               initializers
--
-- Field numbers from onnx/onnx.proto (reference tune-and-inference-formats §6): ModelProto
-- graph=7, opset_import=8; OperatorSetIdProto domain=1, version=2; GraphProto node=1,
-- initializer=5, input=11; NodeProto op_type=4, domain=7, attribute=5; AttributeProto g=6,
-- graphs=11; TensorProto name=8; ValueInfoProto name=1, type=2; TypeProto tensor_type=1;
-- Tensor type shape=2; TensorShapeProto dim=1; Dimension dim_value=1, dim_param=2.
-- Initializer payloads are skipped, never copied.

local onnx = {}

local MAX_DEPTH = 16

local function varint(s, pos, limit)
	local v, shift = 0, 0
	while pos <= limit do
		local b = s:byte(pos)
		pos = pos + 1
		v = v | ((b & 0x7f) << shift)
		if b < 0x80 then return v, pos end
		shift = shift + 7
		if shift > 63 then error("varint too long", 0) end
	end
	error("truncated varint", 0)
end

-- Calls fn(field, wire, value_or_start, end) for each field of the message s[from..to];
-- for length-delimited fields the callback gets the byte range of the payload.
local function fields(s, from, to, fn)
	local pos = from
	while pos <= to do
		local tag
		tag, pos = varint(s, pos, to)
		local field, wire = tag >> 3, tag & 7
		if wire == 0 then
			local v
			v, pos = varint(s, pos, to)
			fn(field, 0, v)
		elseif wire == 2 then
			local len
			len, pos = varint(s, pos, to)
			if len < 0 or pos + len - 1 > to then error("field " .. field .. " runs past its message", 0) end
			fn(field, 2, pos, pos + len - 1)
			pos = pos + len
		elseif wire == 1 then
			pos = pos + 8
		elseif wire == 5 then
			pos = pos + 4
		else
			error("unsupported wire type " .. wire, 0)
		end
	end
	if pos ~= to + 1 then error("message runs past its end", 0) end
end

local function str(s, a, b) return s:sub(a, b) end

local function read_dim(s, a, b)
	local d = "?"
	fields(s, a, b, function(f, w, x, y)
		if f == 1 and w == 0 then d = x elseif f == 2 and w == 2 then d = str(s, x, y) end
	end)
	return d
end

local function read_value_info(s, a, b)
	local vi = { name = "", dims = nil }
	fields(s, a, b, function(f, w, x, y)
		if f == 1 and w == 2 then
			vi.name = str(s, x, y)
		elseif f == 2 and w == 2 then
			fields(s, x, y, function(f2, w2, x2, y2)
				if f2 == 1 and w2 == 2 then -- tensor_type
					fields(s, x2, y2, function(f3, w3, x3, y3)
						if f3 == 2 and w3 == 2 then -- shape
							vi.dims = {}
							fields(s, x3, y3, function(f4, w4, x4, y4)
								if f4 == 1 and w4 == 2 then vi.dims[#vi.dims + 1] = read_dim(s, x4, y4) end
							end)
						end
					end)
				end
			end)
		end
	end)
	return vi
end

local read_graph

local function read_node(s, a, b, m, depth)
	local op, domain = "", ""
	fields(s, a, b, function(f, w, x, y)
		if f == 4 and w == 2 then
			op = str(s, x, y)
		elseif f == 7 and w == 2 then
			domain = str(s, x, y)
		elseif f == 5 and w == 2 then
			fields(s, x, y, function(f2, w2, x2, y2)
				if (f2 == 6 or f2 == 11) and w2 == 2 then read_graph(s, x2, y2, m, depth + 1, false) end
			end)
		end
	end)
	local key = domain .. "\0" .. op
	local o = m.by[key]
	if not o then
		o = { op_type = op, domain = domain, count = 0 }
		m.by[key] = o
	end
	o.count = o.count + 1
	m.nodes = m.nodes + 1
end

read_graph = function(s, a, b, m, depth, top)
	if depth > MAX_DEPTH then error("subgraphs nested too deep", 0) end
	local inputs, inits = {}, {}
	fields(s, a, b, function(f, w, x, y)
		if w ~= 2 then return end
		if f == 1 then
			read_node(s, x, y, m, depth)
		elseif f == 5 and top then
			fields(s, x, y, function(f2, w2, x2, y2)
				if f2 == 8 and w2 == 2 then inits[str(s, x2, y2)] = true end
			end)
		elseif f == 11 and top then
			inputs[#inputs + 1] = read_value_info(s, x, y)
		end
	end)
	if top then
		for _, vi in ipairs(inputs) do
			if not inits[vi.name] then m.inputs[#m.inputs + 1] = vi end
		end
	end
end

-- Decodes a model; nil and a reason when the bytes are not a readable ONNX model.
function onnx.read(bytes)
	local m = { opsets = {}, by = {}, nodes = 0, inputs = {} }
	local ok, err = pcall(function()
		local graph = false
		fields(bytes, 1, #bytes, function(f, w, x, y)
			if f == 8 and w == 2 then
				local domain, version = "", nil
				fields(bytes, x, y, function(f2, w2, x2, y2)
					if f2 == 1 and w2 == 2 then domain = str(bytes, x2, y2) elseif f2 == 2 and w2 == 0 then version = x2 end
				end)
				if domain == "ai.onnx" then domain = "" end
				if version then m.opsets[domain] = version end
			elseif f == 7 and w == 2 then
				graph = true
				read_graph(bytes, x, y, m, 0, true)
			end
		end)
		if not graph then error("no graph", 0) end
	end)
	if not ok then return nil, "not a readable ONNX model (" .. tostring(err) .. ")" end
	m.ops = {}
	for _, o in pairs(m.by) do m.ops[#m.ops + 1] = o end
	m.by = nil
	table.sort(m.ops, function(p, q)
		if p.count ~= q.count then return p.count > q.count end
		return p.domain .. p.op_type < q.domain .. q.op_type
	end)
	return m
end

return onnx
