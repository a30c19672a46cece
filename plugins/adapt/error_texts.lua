-- adapt.error_texts: a test of an error's message for CUDA's wording made to match the
-- NPU's too (lib/errortext.lua).

local refs = require("refs")
local errortext = require("errortext")

return {
	id = "adapt.error_texts",
	phase = "adapt",
	title = _("Error handling that looks for CUDA's wording of a message"),
	severity = "warning",
	category = "device",
	description = _("Rewrites a test of an error's message for CUDA's wording (\"CUDA out of memory\" in "
		.. "str(e)) to look for the part both devices' messages share (\"out of memory\"), so the "
		.. "handling it guards runs on the NPU host as it does on a GPU. Runs with either strategy: "
		.. "transfer_to_npu does not change torch_npu's messages."),
	triggers = { "out of memory" },
	run = function(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			refs.report_all(ctx, errortext.sites(ctx, path), "fix")
		end
	end,
}
