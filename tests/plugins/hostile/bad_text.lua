-- Hostile plugin fixture: invalid UTF-8 and terminal escape sequences in every string it
-- hands over, reported on every Python file (one of which has an escape in its name);
-- with a file FAIL in the project, its error message carries them too.
return {
  id = "assess.hostile_bad_text", phase = "assess", title = "hostile: bad_text", severity = "warning",
  category = "odd",
  run = function(ctx)
    for _, p in ipairs(ctx.files("%.py$")) do
      ctx.report{ file = p, line = 1, message = "bad \255\254 bytes \27[2J\27]0;owned\7 here\0tail",
                  suggestion = "also \192\128 overlong and \194\133 C1", category = "odd\255" }
    end
    ctx.metric("bad\255name", 1, "u\27[31m")
    if ctx.read("FAIL") then error("failure with \255 and \27[31mred\27[0m") end
  end,
}
