-- Hostile plugin fixture: each call backtracks for about a second (just under the per-call
-- pattern limit) and costs little budget, so only the wall-clock limit ends the run.
return {
  id = "assess.hostile_slow_pattern", phase = "assess", title = "hostile: slow_pattern", severity = "warning",
  run = function(ctx)
    local s = string.rep("a", 30000)
    while true do string.find(s, "^a*a*b") end
  end,
}
