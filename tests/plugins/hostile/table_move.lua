-- Hostile plugin fixture: table.move over a 2^40 range
return {
  id = "assess.hostile_table_move", phase = "assess", title = "hostile: table_move", severity = "warning",
  run = function(ctx)
    table.move({}, 1, 1 << 40, 2)
  end,
}
