-- Hostile plugin fixture: large string.rep work in one call, repeated
return {
  id = "assess.hostile_big_rep", phase = "assess", title = "hostile: big_rep", severity = "warning",
  run = function(ctx)
    for _ = 1, 1000000 do local s = string.rep("ab", 8 << 20) end
  end,
}
