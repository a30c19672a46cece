-- Hostile fixture: edits alias.py, a symlink (to models/net.py, inside the project)
return {
	id = "adapt.hostile_file_link",
	phase = "adapt",
	title = "hostile fix: edits alias.py, a symlink (to models/net.py, inside the project)",
	severity = "warning",
	run = function(ctx)
		ctx.report{ file = "alias.py", line = 1, key = "hostile", message = "hostile edit of alias.py",
			edits = { { start_byte = 0, end_byte = 0, text = "# via a link\n" } } }
	end,
}
