-- Hostile plugin fixture: a good metric, then a NaN one (the store refuses NaN), when the
-- project holds the file named by the BAD variable below; else an infinite or huge position.
return {
  id = "assess.hostile_bad_numbers", phase = "assess", title = "hostile: bad_numbers", severity = "info",
  run = function(ctx)
    ctx.metric("fine", 1, "count")
    if ctx.read("NAN") then ctx.metric("broken", 0 / 0, "count") end
    if ctx.read("INF") then ctx.metric("broken", math.huge) end
    if ctx.read("HUGE") then ctx.report{ file = "train.py", line = 1 << 40, message = "far away" } end
  end,
}
