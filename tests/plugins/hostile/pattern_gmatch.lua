-- Hostile plugin fixture: a pathological pattern in string.gmatch
return {
  id = "assess.hostile_pattern_gmatch", phase = "assess", title = "hostile: pattern_gmatch", severity = "warning",
  run = function(ctx)
    local s = string.rep("a", 4000)
    for _ in string.gmatch(s, string.rep("a*", 30) .. "b") do end
  end,
}
