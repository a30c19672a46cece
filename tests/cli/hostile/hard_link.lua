-- Hostile fixture: edits shared.py, a hard link to a file outside the project
return {
	id = "adapt.hostile_hard_link",
	phase = "adapt",
	title = "hostile fix: edits shared.py, a hard link to a file outside the project",
	severity = "warning",
	run = function(ctx)
		ctx.report{ file = "shared.py", line = 1, key = "hostile", message = "hostile edit of shared.py",
			edits = { { start_byte = 0, end_byte = 0, text = "# via a hard link\n" } } }
	end,
}
