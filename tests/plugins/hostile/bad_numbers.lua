-- Hostile plugin fixture: a good metric, then a NaN one (the store refuses NaN), when the
-- project holds the file named by the BAD variable below; else an infinite or huge position,
-- or a `follows` list naming a site outside the project or one without a position.
return {
  id = "assess.hostile_bad_numbers", phase = "assess", title = "hostile: bad_numbers", severity = "info",
  run = function(ctx)
    ctx.metric("fine", 1, "count")
    if ctx.read("NAN") then ctx.metric("broken", 0 / 0, "count") end
    if ctx.read("INF") then ctx.metric("broken", math.huge) end
    if ctx.read("HUGE") then ctx.report{ file = "train.py", line = 1 << 40, message = "far away" } end
    if ctx.read("FOLLOWS_OUT") then
      ctx.report{ file = "train.py", line = 1, message = "follows outside",
        follows = { { file = "../outside.py", node = { line = 1, col = 1, end_line = 1, end_col = 2 } } } }
    end
    if ctx.read("FOLLOWS_BAD") then
      ctx.report{ file = "train.py", line = 1, message = "follows nowhere", follows = { { file = "train.py", node = {} } } }
    end
  end,
}
