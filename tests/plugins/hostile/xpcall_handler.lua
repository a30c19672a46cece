-- Hostile plugin fixture: an xpcall message handler that never returns
return {
  id = "assess.hostile_xpcall_handler", phase = "assess", title = "hostile: xpcall_handler", severity = "warning",
  run = function(ctx)
    xpcall(error, function() while true do end end, "boom")
  end,
}
