-- Hostile plugin fixture: findings just under the size of one message, until the run has
-- handed over far more than the memory cap.
return {
  id = "assess.hostile_flood_total", phase = "assess", title = "hostile: flood_total", severity = "info",
  run = function(ctx)
    local m = string.rep("y", 60000)
    for i = 1, 100000 do ctx.report{ message = m, suggestion = m, key = tostring(i) } end
  end,
}
