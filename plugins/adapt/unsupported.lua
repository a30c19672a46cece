-- adapt.unsupported: what no rewrite can migrate, for a human (the "unsupported list").

local refs = require("refs")
local cuda = require("cuda")
local blockers = require("blockers")

-- Reports sites with an overriding severity (nil keeps each site's own); with note, the
-- suggestion adds that transfer_to_npu cannot run the construct.
local function report(ctx, sites, severity, note)
	for _i, s in ipairs(sites) do
		if severity then s.severity = severity end
		if note then
			s.suggestion = _("{advice} transfer_to_npu is selected (`ferry config strategy`): resolve this before the first NPU run.",
				{ advice = s.suggestion })
		end
		refs.report(ctx, s, "fix")
	end
end

return {
	id = "adapt.unsupported",
	phase = "adapt",
	title = _("Code that needs a human (custom kernels, unsupported operators, DataParallel ...)"),
	severity = "error",
	category = "unsupported",
	description = _("Lists, like the vendor migration tool's unsupported list, what no mechanical "
		.. "rewrite can migrate: CUDA source files and the code that builds them (setup.py, shell "
		.. "scripts and Makefiles running nvcc), operators "
		.. "unsupported or limited on NPU (unsupported_ops.json), DataParallel, channels_last, and "
		.. "functions that run a tool for NVIDIA GPUs only (nvidia-smi, nvcc, NVML), which are "
		.. "removed, skipped on the NPU or rewritten with npu-smi by a person. "
		.. "With the automatic strategy (transfer_to_npu) channels_last and torch.jit.script are "
		.. "errors: transfer_to_npu does not support the first and disables the second."),
	triggers = function(data)
		local out = blockers.triggers(data)
		for _i, t in ipairs(data("nvidia_only").tools or {}) do
			for _j, w in ipairs(t.triggers or {}) do out[#out + 1] = w end
		end
		return out
	end,
	run = function(ctx)
		local auto = cuda.auto(ctx)
		local tables = blockers.op_tables(ctx)
		local note = auto
		for _i, s in ipairs(blockers.cuda_sources(ctx)) do
			s.category = "custom_kernel"
			refs.report(ctx, s, "fix")
		end
		-- the shell scripts and Makefiles that build them with nvcc (a Python build script
		-- naming nvcc is reported as the survey does, below: what to keep of it and what to
		-- drop, not a function to skip)
		for _i, s in ipairs(blockers.nvcc_builds(ctx)) do
			s.category = "custom_kernel"
			refs.report(ctx, s, "fix")
		end
		for _i, path in ipairs(ctx.python_files()) do
			local map = refs.aliases(ctx, path)
			local function cat(sites, c)
				for _i, s in ipairs(sites) do s.category = c end
				return sites
			end
			report(ctx, cat(blockers.extension_builders(ctx, path, map), "custom_kernel"), nil)
			report(ctx, cat(blockers.unsupported_ops(ctx, path, tables, map), "operators"), nil)
			report(ctx, cat(blockers.data_parallel(ctx, path, map), "distributed"), nil)
			local build = cat(blockers.nvcc_build_script(ctx, path), "custom_kernel")
			report(ctx, #build > 0 and build or cuda.nvidia_tool_functions(ctx, path), nil)
			report(ctx, cat(blockers.channels_last(ctx, path, map), "layout"), auto and "error" or "warning", note)
			if auto then
				report(ctx, cat(blockers.jit_script(ctx, path, map), "jit"), "error", note)
			end
		end
	end,
}
