-- assess.channels_last: the channels_last memory format.

local refs = require("refs")
local blockers = require("blockers")

return {
	id = "assess.channels_last",
	phase = "assess",
	title = _("channels_last memory format"),
	severity = "warning",
	category = "layout",
	description = _("Finds torch.channels_last and torch.channels_last_3d. The channels_last memory "
		.. "format is not supported by automatic migration; the vendor's advice is to use "
		.. ".contiguous() instead. One that runs only when an option off by default turns it on "
		.. "(`if args.channels_last:` of a store_true option) is information: it adds no effort."),
	triggers = { "channels_last" },
	run = function(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			refs.report_all(ctx, blockers.as_opt_in(ctx, path, blockers.channels_last(ctx, path, refs.aliases(ctx, path))), "survey")
		end
	end,
}
