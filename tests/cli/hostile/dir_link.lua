-- Hostile fixture: creates a file through link_out/, a folder symlink pointing outside the project
return {
	id = "adapt.hostile_dir_link",
	phase = "adapt",
	title = "hostile fix: creates a file through link_out/, a folder symlink pointing outside the project",
	severity = "warning",
	run = function(ctx)
		ctx.report{ file = "link_out/created_by_fix.py", line = 1, key = "hostile", message = "hostile edit of link_out/created_by_fix.py",
			edits = { { start_byte = 0, end_byte = 0, text = "x = 1\n" } } }
	end,
}
