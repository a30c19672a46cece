-- Hostile plugin fixture: a pathological pattern in string.gsub
return {
  id = "assess.hostile_pattern_gsub", phase = "assess", title = "hostile: pattern_gsub", severity = "warning",
  run = function(ctx)
    local s = string.rep("a", 4000)
    string.gsub(s, string.rep("a*", 30) .. "b", "")
  end,
}
