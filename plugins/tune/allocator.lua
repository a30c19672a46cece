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
					-- the lines are read only where a setting can be: a discouraged knob's name,
					-- or an allocator variable beside expandable_segments
					local has_setting = false
					for _i, n in ipairs(NAMES) do
						if text:find(n, 1, true) then
							mentioned = true
							has_setting = has_setting or text:find("expandable_segments", 1, true) ~= nil
						end
					end
					for _i, k in ipairs(knobs) do
						if text:find(k.name:match("[%w_]+$"), 1, true) then said[k.name] = true end
						-- (a name with pattern characters is matched as a pattern below: always read)
						has_setting = has_setting or (k.discouraged
							and (k.name:find("[%^%$%(%)%%%.%[%]%*%+%-%?]") or text:find(k.name, 1, true)) ~= nil)
					end
					-- the host splits the lines (a pattern over a whole large file trips the
					-- sandbox's backtracking guard)
					for line, l in ipairs(has_setting and ctx.lines(path) or {}) do
						for _i, k in ipairs(knobs) do
							local v = k.discouraged and l:match(k.name .. "[\"'%]]*%s*[=:,]%s*[\"']?(%d+)")
							for _i, bad in ipairs(v and k.discouraged or {}) do
								if v == bad then
									ctx.report{
										file = path, line = line, col = 1, severity = "warning", key = "discouraged:" .. line,
										message = _("{name}={v} is a setting the vendor advises against: {purpose}.", { name = k.name, v = v, purpose = _(k.purpose) }),
										suggestion = _("Set {name}={value} (the default) or leave it unset.", { name = k.name, value = k.value }),
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
									message = _("This allocator setting combines expandable_segments:True with {with}, which the vendor forbids: {note}.",
										{ with = table.concat(with, ", "),
										  note = e.exclusive_note and _(e.exclusive_note) or _("expandable segments must be used alone") }),
									suggestion = _("Keep `expandable_segments:True` alone, or drop it and keep {with} (for out-of-memory errors with many inactive split blocks).",
										{ with = table.concat(with, ", ") }),
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
					local how = k.kind == "api" and _("Call `{name}({value})` once after selecting the device", { name = k.name, value = k.value })
						or (k.name == "HCCL_BUFFSIZE" and _("Export HCCL_BUFFSIZE in MB (default {value}, range {lo}-{hi}): lower it when memory is short",
							{ value = k.value, lo = k.range[1], hi = k.range[2] }))
						or _("Export {name}={value} in the launch script", { name = k.name, value = k.value })
					ctx.report{
						key = "large:" .. k.name,
						message = _("The model has {params} billion parameters on {cards} cards and the project never sets {name}: {purpose}.",
							{ params = string.format("%g", params), cards = cards, name = k.name, purpose = _(k.purpose) }),
						suggestion = _("{how} (vendor's memory tuning for large models).", { how = how }),
						data = { source = k.source },
					}
				end
			end
		end
		if mentioned or not params or params < LARGE_B then return end
		ctx.report{
			key = "alloc-conf",
			message = _("The model has {params} billion parameters but the project never sets PYTORCH_NPU_ALLOC_CONF, so the NPU caching allocator runs with its defaults and large models fragment its memory.",
				{ params = string.format("%g", params) }),
			suggestion = _("Export `PYTORCH_NPU_ALLOC_CONF=expandable_segments:True` in the launch script before starting training, on its own: it must not be combined with max_split_size_mb or garbage_collection_threshold."),
		}
	end,
}
