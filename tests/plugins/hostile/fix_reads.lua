-- Hostile plugin fixture: its fix function reads another file while ferry still holds
-- the text of the file the finding is in (read whole, no tree): the finding's identity
-- must not come from text that read let go of.
return {
  id = "assess.hostile_fix_reads", phase = "assess", title = "hostile: fix_reads", severity = "info",
  run = function(ctx)
    assert(ctx.read("train.py"))
    for i = 1, 3 do
      ctx.report{ file = "train.py", line = i, message = "fixed by reading another file " .. i }
    end
  end,
  fix = function(ctx, finding)
    assert(ctx.read("models/net.py"))
    return nil
  end,
}
