-- Hostile fixture: edits null.dev, a character device
return {
	id = "adapt.hostile_device",
	phase = "adapt",
	title = "hostile fix: edits null.dev, a character device",
	severity = "warning",
	run = function(ctx)
		ctx.report{ file = "null.dev", line = 1, key = "hostile", message = "hostile edit of null.dev",
			edits = { { start_byte = 0, end_byte = 0, text = "data\n" } } }
	end,
}
