-- Hostile plugin fixture: large utf8.len work in one call, repeated
return {
  id = "assess.hostile_big_utf8", phase = "assess", title = "hostile: big_utf8", severity = "warning",
  run = function(ctx)
    local s = string.rep("a", 16 << 20)
    for _ = 1, 1000000 do utf8.len(s) end
  end,
}
