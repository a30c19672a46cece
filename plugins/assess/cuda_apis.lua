-- assess.cuda_apis: torch.cuda.* calls and attributes, classified by the mapping table.

local refs = require("refs")
local cuda = require("cuda")

return {
	id = "assess.cuda_apis",
	phase = "assess",
	title = _("torch.cuda APIs and their NPU equivalents"),
	severity = "warning",
	category = "device",
	description = _("Finds every use of torch.cuda (also through `import torch.cuda as tc` or "
		.. "`from torch import cuda`) and looks it up in cuda_api_map.json: most names exist as "
		.. "torch.npu.X once torch_npu is imported; some work with caveats; a few have no NPU "
		.. "equivalent and need the code redesigned."),
	triggers = { "cuda" },
	run = function(ctx)
		local index = cuda.api_index(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			refs.report_all(ctx, cuda.cuda_apis(ctx, path, index, refs.aliases(ctx, path)), "survey")
		end
	end,
}
