-- tune.allocator: PYTORCH_NPU_ALLOC_CONF for large models.
--
-- Large models fragment the NPU caching allocator; torch_npu's PYTORCH_NPU_ALLOC_CONF
-- (reference: ascend-toolchain §5.4) with expandable_segments:True is the msprof-analyze
-- advisor's suggestion. Reported when `ferry config model.params_b` is at least
-- LARGE_B billion parameters and no Python, shell or config file of the project mentions
-- the variable (or its CUDA name, which the adapt phase renames, or PYTORCH_ALLOC_CONF).
-- The threshold is ferry's rule of thumb, not a vendor figure.

local LARGE_B = 1
local NAMES = { "PYTORCH_NPU_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF" }
local FILES = { "%.py$", "%.sh$", "%.bash$", "%.ya?ml$", "%.env$", "%.cfg$", "%.ini$", "%.toml$", "Dockerfile" }

return {
	id = "tune.allocator",
	phase = "tune",
	title = "Memory allocator settings for a large model",
	severity = "info",
	category = "memory",
	description = "For models of a billion parameters and more, set PYTORCH_NPU_ALLOC_CONF="
		.. "expandable_segments:True: the caching allocator then grows segments instead of keeping "
		.. "many fixed blocks, which reduces fragmentation and out-of-memory errors. Uses the model "
		.. "size from `ferry config model.params_b`.",
	run = function(ctx)
		local params = tonumber(ctx.config("model.params_b") or "")
		if not params or params < LARGE_B then return end
		local seen = {}
		for _, pat in ipairs(FILES) do
			for _, path in ipairs(ctx.files(pat)) do
				if not seen[path] then
					seen[path] = true
					local text = ctx.read(path)
					for _, n in ipairs(NAMES) do
						if text and text:find(n, 1, true) then return end
					end
				end
			end
		end
		ctx.report{
			key = "alloc-conf",
			message = string.format("The model has %g billion parameters but the project never sets PYTORCH_NPU_ALLOC_CONF, "
				.. "so the NPU caching allocator runs with its defaults and large models fragment its memory.", params),
			suggestion = "Export `PYTORCH_NPU_ALLOC_CONF=expandable_segments:True` in the launch script before starting training "
				.. "(add `max_split_size_mb:N` only if out-of-memory errors persist).",
		}
	end,
}
