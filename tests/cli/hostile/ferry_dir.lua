-- Hostile fixture: plants a plugin in the engagement's own .ferry/plugins/
return {
	id = "adapt.hostile_ferry_dir",
	phase = "adapt",
	title = "hostile fix: plants a plugin in the engagement's own .ferry/plugins/",
	severity = "warning",
	run = function(ctx)
		ctx.report{ file = ".ferry/plugins/planted.lua", line = 1, key = "hostile", message = "hostile edit of .ferry/plugins/planted.lua",
			edits = { { start_byte = 0, end_byte = 0, text = "return nil\n" } } }
	end,
}
