-- Hostile plugin fixture: a pathological pattern in string.match
return {
  id = "assess.hostile_pattern_match", phase = "assess", title = "hostile: pattern_match", severity = "warning",
  run = function(ctx)
    local s = string.rep("a", 4000)
    string.match(s, string.rep("a-", 30) .. "b")
  end,
}
