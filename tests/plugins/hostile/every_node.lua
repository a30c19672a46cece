-- Hostile plugin fixture (an odd-file probe): asks for every node of every Python file.
-- A file with more nodes than fit in the plugin's memory is skipped by this check with a
-- finding naming it; the other files are still reported.
return {
  id = "assess.hostile_every_node", phase = "assess", title = "hostile: every_node", severity = "info",
  run = function(ctx)
    for _, p in ipairs(ctx.python_files()) do
      local ms = ctx.query(p, "(_) @n")
      if ms then ctx.report{ file = p, message = #ms .. " nodes", key = p } end
    end
  end,
}
