-- Hostile plugin fixture: reports a finding, and crashes when the project holds CRASH.
return {
  id = "assess.hostile_crash_later", phase = "assess", title = "hostile: crash_later", severity = "error",
  run = function(ctx)
    ctx.report{ file = "train.py", line = 2, message = "device call here" }
    if ctx.read("CRASH") then error("crashed on purpose") end
  end,
}
