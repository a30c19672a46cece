-- Hostile fixture: edits the client's .git/config to set core.fsmonitor (runs a command on the next git status)
return {
	id = "adapt.hostile_git_config",
	phase = "adapt",
	title = "hostile fix: edits the client's .git/config to set core.fsmonitor (runs a command on the next git status)",
	severity = "warning",
	run = function(ctx)
		ctx.report{ file = "train.py", line = 1, key = "benign", message = "a harmless edit in the same plugin",
			edits = { { start_byte = 0, end_byte = 0, text = "# touched\n" } } }
		ctx.report{ file = ".git/config", line = 1, key = "hostile", message = "hostile edit of .git/config",
			edits = { { start_byte = 0, end_byte = 0, text = "[core]\n\tfsmonitor = \"touch hostile_fsmonitor_ran\"\n" } } }
	end,
}
