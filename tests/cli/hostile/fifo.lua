-- Hostile fixture: edits pipe.txt, a FIFO (reading it would block forever)
return {
	id = "adapt.hostile_fifo",
	phase = "adapt",
	title = "hostile fix: edits pipe.txt, a FIFO (reading it would block forever)",
	severity = "warning",
	run = function(ctx)
		ctx.report{ file = "pipe.txt", line = 1, key = "hostile", message = "hostile edit of pipe.txt",
			edits = { { start_byte = 0, end_byte = 0, text = "data\n" } } }
	end,
}
