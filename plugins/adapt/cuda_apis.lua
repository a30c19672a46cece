-- adapt.cuda_apis: torch.cuda.X -> torch.npu.X where the mapping table has an equivalent.

local refs = require("refs")
local cuda = require("cuda")

return {
	id = "adapt.cuda_apis",
	phase = "adapt",
	title = _("torch.cuda APIs to torch.npu"),
	severity = "warning",
	category = "device",
	description = _("Rewrites torch.cuda.X as torch.npu.X where cuda_api_map.json lists an NPU "
		.. "equivalent. Names imported from torch.cuda (`import torch.cuda as tc`, `from torch "
		.. "import cuda`, `from torch.cuda import X`) are fixed at the import, so the code using "
		.. "them stays as written and a local variable named cuda is never touched. Names with no "
		.. "equivalent, or not in the table, are listed for a human. With the automatic strategy "
		.. "only those are listed: transfer_to_npu maps the rest at run time."),
	triggers = { "cuda" },
	run = function(ctx)
		local index = cuda.api_index(ctx)
		local auto = cuda.auto(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			for _i, site in ipairs(cuda.cuda_apis(ctx, path, index, refs.aliases(ctx, path))) do
				if not auto or site.severity == "error" then refs.report(ctx, site, "fix") end
			end
		end
	end,
}
