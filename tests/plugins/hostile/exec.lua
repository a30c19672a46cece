-- Hostile plugin fixture: an engagement plugin that runs a program during a plain check.
return {
  id = "environment.hostile_exec", phase = "environment", title = "hostile: exec", severity = "warning",
  needs = { "exec" },
  run = function(ctx)
    local r = ctx.exec({ "touch", "EXECUTED" }, 5000)
    ctx.report{ message = "ran a program: " .. tostring(r and r.status) }
  end,
}
