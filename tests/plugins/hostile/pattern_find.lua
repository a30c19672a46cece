-- Hostile plugin fixture: a pathological pattern in string.find
return {
  id = "assess.hostile_pattern_find", phase = "assess", title = "hostile: pattern_find", severity = "warning",
  run = function(ctx)
    local s = string.rep("a", 4000)
    string.find(s, string.rep("a*", 30) .. "b")
  end,
}
