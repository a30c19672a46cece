-- errortext: code that recognises an error by CUDA's wording of its message.
--
-- detectron2's retry_if_cuda_oom catches RuntimeError and goes on only when the message
-- holds "CUDA out of memory. "; torch_npu words the same error "NPU out of memory. ..."
-- (data/error_texts.json). On the NPU host such a test is never true: the handling it
-- guards (empty the cache and retry, fall back to the CPU, halve the batch) never runs, and
-- the error ends the program instead.
--
--   local errortext = require("errortext")
--   local sites = errortext.sites(ctx, path)
--
-- A site is a string literal holding an entry's CUDA text (in any letter case) that the
-- code tests: after `in` or `not in`, or as the first argument of a text method or re
-- function. Its edit makes the test hold for either device's wording: the words naming
-- CUDA are dropped where the text is looked for anywhere (`in`, .find, re.search), the
-- literal becomes a tuple of both wordings for .startswith and .endswith, and the words
-- become an alternative, `(?:CUDA|NPU)`, in a pattern re.match anchors. A text compared
-- with == is reported for a person.

local errortext = {}

local TESTED = [[
(comparison_operator (string) @s) @cmp
(call function: (attribute attribute: (identifier) @m) arguments: (argument_list . (string) @s))
]]
-- how each text method looks for its argument
local METHODS = {
	find = "anywhere", rfind = "anywhere", index = "anywhere", count = "anywhere", search = "anywhere",
	findall = "anywhere", finditer = "anywhere", startswith = "tuple", endswith = "tuple",
	match = "pattern", fullmatch = "pattern",
}

-- How the code at m tests its string: "anywhere", "tuple", "pattern", "equal" or nil.
local function test_kind(m)
	if m.m then return METHODS[m.m.text] end
	local after = m.cmp.text:sub(m.s.end_byte - m.cmp.start_byte + 1)
	if after:match("^%s*in%s") or after:match("^%s*not%s+in%s") then return "anywhere" end
	if after:match("^%s*[=!]=") or m.cmp.text:sub(1, m.s.start_byte - m.cmp.start_byte):match("[=!]=%s*$") then return "equal" end
	return nil
end

-- The edits making the literal s test for entry e's texts on both devices, where the CUDA
-- text starts at byte `at` (1-based) of s.text: nil for a text compared whole.
local function edits_for(kind, s, e, at)
	-- the words naming the device, as the literal writes them ("CUDA ") and torch_npu's ("NPU ")
	local word_len = e.cuda:lower():find(e.common:lower(), 1, true) - 1
	local word = s.text:sub(at, at + word_len - 1)
	local npu_word = e.npu:sub(1, #e.npu - #e.common)
	if word == word:lower() then npu_word = npu_word:lower() end
	local b = s.start_byte + at - 1
	if kind == "anywhere" then
		return { { start_byte = b, end_byte = b + word_len, text = "" } }
	elseif kind == "tuple" then
		local npu_text = s.text:sub(1, at - 1) .. npu_word .. s.text:sub(at + word_len)
		return { { start_byte = s.start_byte, end_byte = s.end_byte, text = "(" .. s.text .. ", " .. npu_text .. ")" } }
	elseif kind == "pattern" then
		local name, npu_name = word:match("^(.-)%s*$"), npu_word:match("^(.-)%s*$")
		return { { start_byte = b, end_byte = b + #name, text = "(?:" .. name .. "|" .. npu_name .. ")" } }
	end
	return nil
end

-- The sites of path (see above), each a site table for refs.report.
function errortext.sites(ctx, path)
	local out = {}
	local entries = ctx.data("error_texts").entries
	for _i, m in ipairs(ctx.query(path, TESTED) or {}) do
		local kind = test_kind(m)
		local text = kind and m.s.text:lower()
		for _j, e in ipairs(text and entries or {}) do
			local at = text:find(e.cuda:lower(), 1, true)
			if at then
				local a = { code = m.s.text, npu = e.npu, common = e.common, what = _(e.what) }
				local edits = edits_for(kind, m.s, e, at)
				out[#out + 1] = {
					file = path, node = m.s,
					message = _("{code} tests an error's message for CUDA's wording of {what}; torch_npu words it \"{npu}\", so on the NPU host the test is never true and the handling it guards never runs.", a),
					suggestion = edits and _("Test for both wordings: \"{common}\" is in either message.", a)
						or _("The message is compared whole: compare it with torch_npu's wording too, or test for \"{common}\", which is in either message.", a),
					edits = edits,
					key = e.cuda,
				}
				break
			end
		end
	end
	return out
end

return errortext
