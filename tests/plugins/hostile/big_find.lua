-- Hostile plugin fixture: large string.find work in one call, repeated
return {
  id = "assess.hostile_big_find", phase = "assess", title = "hostile: big_find", severity = "warning",
  run = function(ctx)
    local s = string.rep("a", 16 << 20)
    for _ = 1, 1000000 do string.find(s, "b", 1, true) end
  end,
}
