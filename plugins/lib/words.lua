-- words: lists inside translatable messages, and text quoted in them.
--   local words = require("words")
--   words.join(list)          "a, b, c"  (each item shown in the reader's language)
--   words.join(list, ";")     "a; b; c"
--   words.clip(text, max)     text cut to at most max bytes at a character boundary, "…" after
--
-- Items may be _() results (a fact table's prose, a clause with its own values): the list
-- is folded into nested _("{head}, {tail}") messages, so the record keeps every item's id
-- and arguments and a reader sees each item, and the separators, in their language.

local words = {}

-- Nesting stops at MAX items (the record's JSON nesting has a limit); the rest are joined
-- as they are.
local MAX = 100

function words.join(list, sep)
	local out
	if #list > MAX then
		local rest = {}
		for i = MAX, #list do rest[#rest + 1] = tostring(list[i]) end
		local head = {}
		for i = 1, MAX - 1 do head[i] = list[i] end
		head[MAX] = table.concat(rest, sep == ";" and "; " or ", ")
		list = head
	end
	for i = 1, #list do
		local item = tostring(list[i])
		if not out then
			out = item
		elseif sep == ";" then
			out = _("{head}; {tail}", { head = out, tail = item })
		else
			out = _("{head}, {tail}", { head = out, tail = item })
		end
	end
	return out or ""
end

-- How a message names an API the code writes one way and a table another: "`nn.RNN`
-- (torch.nn.RNN)" as a translated piece (Chinese takes full-width parentheses), or just
-- "`text`" when the two are the same.
function words.api(text, full)
	if text == full then return "`" .. text .. "`" end
	return _("`{code}` ({name})", { code = text, name = full })
end

-- Text quoted in a message (a log line, a piece of code): at most max bytes of it, cut
-- where a UTF-8 character begins, with mark ("…" unless given) when anything was cut.
function words.clip(text, max, mark)
	if #text <= max then return text end
	local n = max
	while n > 0 and (text:byte(n + 1) or 0) & 0xC0 == 0x80 do n = n - 1 end
	return text:sub(1, n) .. (mark or "…")
end

return words
