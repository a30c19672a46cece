-- Hostile plugin fixture: a pattern holding a newline, refused on a large text (every
-- start of a text without newlines scans to its end)
return {
  id = "assess.hostile_pattern_lines", phase = "assess", title = "hostile: pattern_lines", severity = "warning",
  run = function(ctx)
    local s = string.rep("a", 200000)
    for _line in s:gmatch("([^\n]*)\n") do end
  end,
}
