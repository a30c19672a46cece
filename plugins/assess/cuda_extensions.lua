-- assess.cuda_extensions: custom CUDA kernels and the code that builds or loads them.

local py = require("py")

-- Local name -> full dotted name bound by the file's imports ({tc = "torch.cuda"}).
local function aliases(ctx, path)
	return py.aliases(ctx, path) or {}
end

-- Dotted names used in code: outermost attribute chains (torch.cuda.synchronize) and
-- plain callees and decorators (autocast(...), @script), each {text=, node=, resolved=,
-- plain=}, in source order. Comments and strings never appear.
local function dotted_refs(ctx, path, map)
	local out = {}
	for _, a in ipairs(py.attributes(ctx, path) or {}) do
		out[#out + 1] = { text = a.text, node = a.node }
	end
	for _, m in ipairs(ctx.query(path, "(call function: (identifier) @f) (decorator (identifier) @f)") or {}) do
		out[#out + 1] = { text = m.f.text, node = m.f, plain = true }
	end
	for _, r in ipairs(out) do r.resolved = py.expand(map, r.text) end
	table.sort(out, function(a, b) return a.node.start_byte < b.node.start_byte end)
	return out
end

local BUILDERS = {
	["torch.utils.cpp_extension.CUDAExtension"] = "builds a CUDA extension at install time",
	["torch.utils.cpp_extension.load"] = "compiles and loads C++/CUDA sources at run time",
	["torch.utils.cpp_extension.load_inline"] = "compiles and loads inline C++/CUDA sources at run time",
}

return {
	id = "assess.cuda_extensions",
	phase = "assess",
	title = "Custom CUDA extensions (.cu files, CUDAExtension, cpp_extension.load)",
	severity = "error",
	category = "custom_kernel",
	description = "Finds CUDA source files (.cu, .cuh) and the Python that compiles or loads them "
		.. "(CUDAExtension in setup.py, torch.utils.cpp_extension.load / load_inline). CUDA "
		.. "kernels cannot run on an NPU: each one must be replaced by existing torch or "
		.. "torch_npu operators, or rewritten as an Ascend C custom operator. These usually "
		.. "dominate the migration effort.",
	triggers = { "cpp_extension", "CUDAExtension" },
	run = function(ctx)
		for _, path in ipairs(ctx.files("%.cuh?$")) do
			local lines = ctx.lines(path) or {}
			ctx.report{
				file = path, line = 1, col = 1, end_line = math.max(1, #lines), end_col = 1,
				message = "`" .. path .. "` is CUDA source code (" .. #lines .. " lines): a custom GPU kernel.",
				suggestion = "Find an equivalent torch or torch_npu operator for what this kernel computes; if there is none it must be rewritten as an Ascend C custom operator.",
				key = "cuda-source",
			}
		end
		for _, path in ipairs(ctx.python_files()) do
			local map = aliases(ctx, path)
			for _, r in ipairs(dotted_refs(ctx, path, map)) do
				local what = BUILDERS[r.resolved]
				if what then
					ctx.report{
						file = path, node = r.node,
						message = "`" .. r.text .. "` " .. what .. ".",
						suggestion = "The CUDA sources it compiles will not build for an NPU: replace those kernels first, then remove this build step or port it to the rewritten operators.",
					}
				end
			end
		end
	end,
}
