-- assess.cuda_extensions: custom CUDA kernels and the code that builds or loads them.

local refs = require("refs")
local blockers = require("blockers")

return {
	id = "assess.cuda_extensions",
	phase = "assess",
	title = _("Custom CUDA extensions (.cu files, CUDAExtension, cpp_extension.load)"),
	severity = "error",
	category = "custom_kernel",
	description = _("Finds CUDA source files (.cu, .cuh) and the code that compiles or loads them "
		.. "(CUDAExtension in setup.py, torch.utils.cpp_extension.load / load_inline, nvcc run by a "
		.. "shell script, a Makefile or a setup.py), and the unguarded imports of the project's own CUDA "
		.. "extensions, which fail where those cannot be built. CUDA "
		.. "kernels cannot run on an NPU: each one must be replaced by existing torch or "
		.. "torch_npu operators, or rewritten as an Ascend C custom operator. These usually "
		.. "dominate the migration effort."),
	triggers = { "cpp_extension", "CUDAExtension", "nvcc" },
	run = function(ctx)
		refs.report_all(ctx, blockers.cuda_sources(ctx), "survey")
		refs.report_all(ctx, blockers.nvcc_builds(ctx), "survey")
		for _i, path in ipairs(ctx.python_files()) do
			refs.report_all(ctx, blockers.extension_builders(ctx, path, refs.aliases(ctx, path)), "survey")
			refs.report_all(ctx, blockers.nvcc_build_script(ctx, path), "survey")
		end
		for _i, path in ipairs(ctx.files("%.py$")) do
			refs.report_all(ctx, blockers.extension_imports(ctx, path), "survey")
		end
	end,
}
