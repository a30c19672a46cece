-- Hostile plugin fixture: reads the finding's own file whole (no tree), then reports a
-- finding there that follows a site in another file. Nothing may read that other file
-- while the report still uses the text of its own (one file read is held at a time).
return {
  id = "assess.hostile_follows_other", phase = "assess", title = "hostile: follows_other", severity = "info",
  run = function(ctx)
    assert(ctx.read("train.py"))
    for i = 1, 3 do
      ctx.report{ file = "train.py", line = i, message = "follows a helper " .. i,
        follows = { { file = "models/net.py", node = { line = 1, col = 1, end_line = 2, end_col = 10 } } } }
    end
  end,
}
