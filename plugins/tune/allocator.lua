-- tune.allocator: PYTORCH_NPU_ALLOC_CONF for large models, and settings that conflict.
--
-- Large models fragment the NPU caching allocator; torch_npu's PYTORCH_NPU_ALLOC_CONF
-- (reference: ascend-toolchain §5.4) with expandable_segments:True is the msprof-analyze
-- advisor's suggestion. The vendor's variable reference (env_vars.json, exclusive_with)
-- says expandable_segments must be False when max_split_size_mb or
-- garbage_collection_threshold is set, so the advice is expandable segments alone, and a
-- setting that combines them is reported wherever the project writes it. The missing
-- setting is reported when `ferry config model.params_b` is at least LARGE_B billion
-- parameters and no Python, shell or config file mentions the variable (or its CUDA name,
-- which the adapt phase renames, or PYTORCH_ALLOC_CONF). The threshold is ferry's rule of
-- thumb, not a vendor figure.

local LARGE_B = 1
local NAMES = { "PYTORCH_NPU_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF" }
local FILES = { "%.py$", "%.sh$", "%.bash$", "%.ya?ml$", "%.env$", "%.cfg$", "%.ini$", "%.toml$", "Dockerfile" }

local function fact(ctx)
	for _i, e in ipairs(ctx.data("env_vars").ascend or {}) do
		if e.name == "PYTORCH_NPU_ALLOC_CONF" then return e end
	end
	return {}
end

return {
	id = "tune.allocator",
	phase = "tune",
	title = _("Memory allocator settings"),
	severity = "info",
	category = "memory",
	description = _("For models of a billion parameters and more, set PYTORCH_NPU_ALLOC_CONF="
		.. "expandable_segments:True: the caching allocator then grows segments instead of keeping "
		.. "many fixed blocks, which reduces fragmentation and out-of-memory errors. Expandable segments "
		.. "must not be combined with max_split_size_mb or garbage_collection_threshold (the vendor's rule); "
		.. "a setting that does is reported. On more than one card (`target.cards`), the vendor's other "
		.. "memory knobs for large models are advised where the project does not set them: "
		.. "MULTI_STREAM_MEMORY_REUSE, HCCL_BUFFSIZE and torch_npu.npu.set_per_process_memory_fraction; "
		.. "MULTI_STREAM_MEMORY_REUSE=0 or 2 is a warning at its line. Uses the model size from "
		.. "`ferry config model.params_b`."),
	run = function(ctx)
		local e = fact(ctx)
		local exclusive = e.exclusive_with or {}
		local mentioned, seen = false, {}
		-- the memory advice for large multi-card models (env_vars.json, when = large_model)
		local knobs, said = {}, {}
		for _i, k in ipairs(ctx.data("env_vars").ascend or {}) do
			if k.when == "large_model" then knobs[#knobs + 1] = k end
		end
		for _i, pat in ipairs(FILES) do
			for _i, path in ipairs(ctx.files(pat)) do
				if not seen[path] then
					seen[path] = true
					local text = ctx.read(path) or ""
					for _i, n in ipairs(NAMES) do
						if text:find(n, 1, true) then mentioned = true end
					end
					for _i, k in ipairs(knobs) do
						if text:find(k.name:match("[%w_]+$"), 1, true) then said[k.name] = true end
					end
					local line = 0
					for l in (text .. "\n"):gmatch("([^\n]*)\n") do
						line = line + 1
						for _i, k in ipairs(knobs) do
							local v = k.discouraged and l:match(k.name .. "[\"'%]]*%s*[=:,]%s*[\"']?(%d+)")
							for _i, bad in ipairs(v and k.discouraged or {}) do
								if v == bad then
									ctx.report{
										file = path, line = line, col = 1, severity = "warning", key = "discouraged:" .. line,
										message = k.name .. "=" .. v .. " is a setting the vendor advises against: " .. k.purpose .. ".",
										suggestion = "Set " .. k.name .. "=" .. k.value .. " (the default) or leave it unset.",
										data = { source = k.source },
									}
								end
							end
						end
						local named = false
						for _i, n in ipairs(NAMES) do named = named or l:find(n, 1, true) ~= nil end
						if named and l:find("expandable_segments%s*:%s*[Tt]rue") then
							local with = {}
							for _i, k in ipairs(exclusive) do
								if l:find(k, 1, true) then with[#with + 1] = k end
							end
							if #with > 0 then
								ctx.report{
									file = path, line = line, col = 1, severity = "warning", key = "exclusive:" .. line,
									message = "This allocator setting combines expandable_segments:True with "
										.. table.concat(with, " and ") .. ", which the vendor forbids: "
										.. (e.exclusive_note or "expandable segments must be used alone") .. ".",
									suggestion = "Keep `expandable_segments:True` alone, or drop it and keep "
										.. table.concat(with, " and ") .. " (for out-of-memory errors with many inactive split blocks).",
								}
							end
						end
					end
				end
			end
		end
		local params = tonumber(ctx.config("model.params_b") or "")
		local cards = tonumber(ctx.config("target.cards") or "") or 1
		if params and params >= LARGE_B and cards > 1 then
			for _i, k in ipairs(knobs) do
				if not said[k.name] then
					local how = k.kind == "api" and string.format("call `%s(%s)` once after selecting the device", k.name, k.value)
						or (k.name == "HCCL_BUFFSIZE" and string.format("export HCCL_BUFFSIZE in MB (default %s, range %d-%d): lower "
							.. "it when memory is short", k.value, k.range[1], k.range[2]))
						or string.format("export %s=%s in the launch script", k.name, k.value)
					ctx.report{
						key = "large:" .. k.name,
						message = string.format("The model has %g billion parameters on %d cards and the project never sets %s: %s.",
							params, cards, k.name, k.purpose),
						suggestion = how:sub(1, 1):upper() .. how:sub(2) .. " (vendor's memory tuning for large models).",
						data = { source = k.source },
					}
				end
			end
		end
		if mentioned or not params or params < LARGE_B then return end
		ctx.report{
			key = "alloc-conf",
			message = string.format("The model has %g billion parameters but the project never sets PYTORCH_NPU_ALLOC_CONF, "
				.. "so the NPU caching allocator runs with its defaults and large models fragment its memory.", params),
			suggestion = "Export `PYTORCH_NPU_ALLOC_CONF=expandable_segments:True` in the launch script before starting training, "
				.. "on its own: it must not be combined with max_split_size_mb or garbage_collection_threshold.",
		}
	end,
}
