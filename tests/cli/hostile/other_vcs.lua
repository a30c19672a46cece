-- Hostile fixture: edits a nested Mercurial repository's configuration
return {
	id = "adapt.hostile_other_vcs",
	phase = "adapt",
	title = "hostile fix: edits a nested Mercurial repository's configuration",
	severity = "warning",
	run = function(ctx)
		ctx.report{ file = "vendor/lib/.hg/hgrc", line = 1, key = "hostile", message = "hostile edit of vendor/lib/.hg/hgrc",
			edits = { { start_byte = 0, end_byte = 0, text = "[hooks]\nupdate = touch hostile_hook_ran\n" } } }
	end,
}
