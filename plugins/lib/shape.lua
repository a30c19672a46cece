-- shape: makes a decoded JSON document (ctx.decode_json) fit the shape its readers
-- expect, so a value of the wrong type is a reported field, not a failed check.
--   local shape = require("shape")
--   local bad = shape.conform(doc, SHAPE)   drops what does not fit; "path: expected X, found Y" lines (_() results)
--   shape.listing(bad)                      "N values of the wrong type: a; b; …" (the first twenty named)
--
-- A shape is a table: an object's fields by name ("*" for any other key), or a list
-- { item_shape }; a leaf is shape.TEXT, shape.NUMBER (finite), shape.INTEGER (a whole number
-- that fits a Lua integer; stored as one) or shape.BOOLEAN. Keys the
-- shape does not name (and no "*") are kept as they are; a list drops its non-integer keys
-- and closes the holes dropped items leave.

local words = require("words")

local shape = { TEXT = "string", NUMBER = "number", INTEGER = "integer", BOOLEAN = "boolean" }

-- the kinds of value, as messages say them (through _(), so they read in the reader's language)
local WHAT = {
	string = _("text"), number = _("a finite number"), integer = _("a whole number"), boolean = _("true or false"),
	table = _("an object or a list"),
}

local function found_as(v)
	if type(v) == "number" and (v ~= v or v == math.huge or v == -math.huge) then return _("a number that is not finite") end
	return ({ table = _("an object or a list"), string = _("text"), number = _("a number"), boolean = _("a boolean") })[type(v)]
		or type(v)
end

local function fits(v, want)
	if type(want) == "table" then return type(v) == "table" end
	if want == shape.NUMBER then return type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge end
	if want == shape.INTEGER then return math.tointeger(v) ~= nil end
	return type(v) == want
end

-- Drops the values of t that do not fit shape; appends "path: expected X, found Y" to bad.
local function conform(t, want_shape, path, bad)
	local list = want_shape[1]
	local keys, last = {}, 0
	for k in pairs(t) do
		keys[#keys + 1] = k
		if math.type(k) == "integer" and k > last then last = k end
	end
	-- a stable order, so the same document always reports the same lines
	table.sort(keys, function(a, b)
		local ia, ib = math.type(a) == "integer", math.type(b) == "integer"
		if ia ~= ib then return ia end
		if ia then return a < b end
		return tostring(a) < tostring(b)
	end)
	for _i, k in ipairs(keys) do
		local v, want = t[k], nil
		if list ~= nil then
			want = math.type(k) == "integer" and list or nil
		else
			want = want_shape[k]
			if want == nil then want = want_shape["*"] end
		end
		local where = list ~= nil and (path .. "[" .. tostring(k) .. "]") or (path == "" and tostring(k) or (path .. "." .. tostring(k)))
		if want ~= nil and not fits(v, want) then
			t[k] = nil
			bad[#bad + 1] = _("{path}: expected {want}, found {found}",
				{ path = where, want = WHAT[type(want) == "table" and "table" or want], found = found_as(v) })
		elseif type(want) == "table" then
			conform(v, want, where, bad)
		elseif want == shape.INTEGER then
			t[k] = math.tointeger(v) -- 64.0 becomes 64, so "%d" formats it
		end
	end
	if list ~= nil then
		-- a list with holes (dropped items) is closed up so ipairs sees every kept item
		local kept = {}
		for i = 1, last do if t[i] ~= nil then kept[#kept + 1] = t[i] end end
		for k in pairs(t) do t[k] = nil end
		for i, v in ipairs(kept) do t[i] = v end
	end
end

function shape.conform(doc, want_shape)
	local bad = {}
	if type(doc) == "table" then conform(doc, want_shape, "", bad) end
	return bad
end

function shape.listing(bad)
	local shown = {}
	for i = 1, math.min(#bad, 20) do shown[i] = bad[i] end
	if #bad > 20 then shown[#shown + 1] = "…" end
	if #bad == 1 then return _("1 value of the wrong type: {list}", { list = words.join(shown, ";") }) end
	return _("{n} values of the wrong type: {list}", { n = #bad, list = words.join(shown, ";") })
end

return shape
