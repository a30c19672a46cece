-- Hostile plugin fixture: a declared query whose compilation takes minutes (200 optional
-- siblings); ferry refuses it at load, in well under a second.
local parts = {}
for i = 1, 200 do parts[i] = "(_)?" end
return {
  id = "assess.hostile_slow_query", phase = "assess", title = "hostile: slow_query", severity = "info",
  query = "(module " .. table.concat(parts, " ") .. ") @m",
  run = function(ctx) end,
}
