-- assess.error_texts: tests of an error's message for CUDA's wording (lib/errortext.lua).

local refs = require("refs")
local errortext = require("errortext")

return {
	id = "assess.error_texts",
	phase = "assess",
	title = _("Error handling that looks for CUDA's wording of a message"),
	severity = "warning",
	category = "device",
	description = _("Finds code that recognises an error by the text CUDA's PyTorch gives it, such as "
		.. "`\"CUDA out of memory\" in str(e)` (error_texts.json). torch_npu words the same error "
		.. "differently (\"NPU out of memory\"), so on the NPU host the test is never true: the "
		.. "handling it guards (emptying the cache and retrying, falling back to the CPU) never runs "
		.. "and the error ends the program."),
	triggers = { "out of memory" },
	run = function(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			refs.report_all(ctx, errortext.sites(ctx, path), "survey")
		end
	end,
}
