-- Hostile plugin fixture: a million findings.
return {
  id = "assess.hostile_flood_count", phase = "assess", title = "hostile: flood_count", severity = "info",
  run = function(ctx)
    for i = 1, 1000000 do ctx.report{ message = "finding " .. i } end
  end,
}
