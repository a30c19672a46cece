-- shape: checks a decoded artifact (env-probe, bench JSON) against the shape its readers
-- expect, so a malformed but schema-shaped file becomes a finding naming the field
-- instead of a Lua error in the middle of a check.
--   local shape = require("shape")
--   local problems = shape.clean(doc, spec)
-- removes (in place) every field whose value has the wrong type and returns the sorted
-- list of "field: expected a string, found a table" lines. A spec is
--   "string" | "number" | "boolean"   that type (numbers must be finite)
--   "finite"                          any value, but a number must be finite
--   { field = spec, ... }             an object; fields not named are left alone
--   { list = spec }                   a list whose every element has that shape
--   { map = spec }                    an object whose every value has that shape
-- A field that is absent (JSON null) is always fine: readers handle missing values.

local shape = {}

local function finite(v)
	return v == v and v ~= math.huge and v ~= -math.huge
end

local function describe(v)
	if type(v) == "number" and not finite(v) then return "a number out of range (" .. tostring(v) .. ")" end
	if type(v) == "table" then return "a list or object" end
	return "a " .. type(v)
end

local function join(path, k)
	if type(k) == "number" then return path .. "[" .. k .. "]" end
	return path == "" and tostring(k) or (path .. "." .. tostring(k))
end

local check

-- Checks the container v against a table spec; bad members are removed.
local function check_table(v, spec, path, out)
	if spec.list then
		for i = #v, 1, -1 do
			if not check(v[i], spec.list, join(path, i), out) then table.remove(v, i) end
		end
	elseif spec.map then
		for k, x in pairs(v) do
			if not check(x, spec.map, join(path, k), out) then v[k] = nil end
		end
	else
		for k, s in pairs(spec) do
			if v[k] ~= nil and not check(v[k], s, join(path, k), out) then v[k] = nil end
		end
	end
end

-- Whether v has the shape spec (its bad members removed); problems are appended to out.
check = function(v, spec, path, out)
	if spec == "finite" then
		if type(v) ~= "number" or finite(v) then return true end
		out[#out + 1] = path .. ": expected a number in range, found " .. describe(v)
		return false
	end
	if type(spec) == "string" then
		if type(v) == spec and (spec ~= "number" or finite(v)) then return true end
		out[#out + 1] = path .. ": expected a " .. spec .. ", found " .. describe(v)
		return false
	end
	if type(v) ~= "table" then
		out[#out + 1] = path .. ": expected " .. (spec.list and "a list" or "an object") .. ", found " .. describe(v)
		return false
	end
	check_table(v, spec, path, out)
	return true
end

function shape.clean(doc, spec)
	local out = {}
	if type(doc) == "table" then check_table(doc, spec, "", out) end
	table.sort(out)
	return out
end

return shape
