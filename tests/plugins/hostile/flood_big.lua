-- Hostile plugin fixture: 100,000 findings of 1 MiB messages (the C side would copy 100 GB).
return {
  id = "assess.hostile_flood_big", phase = "assess", title = "hostile: flood_big", severity = "info",
  run = function(ctx)
    local m = string.rep("x", 1 << 20)
    for i = 1, 100000 do ctx.report{ message = m, key = tostring(i) } end
  end,
}
