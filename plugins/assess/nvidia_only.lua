-- assess.nvidia_only: constructs that only mean something on NVIDIA GPUs although the
-- word `cuda` need not be where they are written (profiler activities, nvFuser switches,
-- torch.compile backends, barrier device ids, CUDA tensor type names, autocast GPU dtype
-- calls, hard-coded NVIDIA peak FLOPS), driven by nvidia_only.json.

local cuda = require("cuda")
local py = require("py")
local refs = require("refs")
local words = require("words")

-- The literal strings a file must hold for an entry to match anywhere in it.
local function entry_triggers(e)
	local last = e.name:match("([^%.]+)$")
	if e.kind == "name" then
		local before = e.name:match("([^%.]+)%.[^%.]+$")
		-- a short last part (CUDA) is common: require the part before it too
		if #last < 8 and before then return { { before, last } } end
		return { last }
	elseif e.kind == "argument" then
		return e.values
	elseif e.kind == "keyword" then
		local out = {}
		for _i, v in ipairs(e.values or { e.call:match("([^%.]+)$") }) do out[#out + 1] = { e.keyword, v } end
		return out
	elseif e.kind == "string" then
		return e.triggers
	elseif e.kind == "number" then
		local out = {}
		for _i, v in ipairs(e.values) do
			-- 989.5e12 is written 989.5e12, 9.895e14, 0.9895e15 ...: its significant digits, with
			-- the decimal point anywhere in them or nowhere, next to an exponent from e10 to e19;
			-- or all its digits (989500000000000)
			local whole = string.format("%.0f", v)
			local digits = whole:gsub("0+$", "")
			out[#out + 1] = whole
			out[#out + 1] = { digits, "e1" }
			for k = 1, #digits - 1 do out[#out + 1] = { digits:sub(1, k) .. "." .. digits:sub(k + 1), "e1" } end
		end
		return out
	end
	return { e.name }
end

local function member(list, v)
	for _i, x in ipairs(list or {}) do if x == v then return true end end
	return false
end

-- A hard-coded peak is only worth a finding where the code uses it as one: a bare 125e12
-- is as likely a byte count or a mass. These are the places whose name says what the number
-- is: an assignment or augmented assignment, a keyword argument, a parameter's default, a
-- dictionary key, and (for a division) the dividend; a number returned by a function counts
-- with the function's name.
local PEAK_WORDS = { "flop", "peak", "promised", "mfu" }
local NAMED_VALUE = [=[[
  (assignment left: (_) @name right: (_) @value)
  (augmented_assignment left: (_) @name right: (_) @value)
  (keyword_argument name: (_) @name value: (_) @value)
  (default_parameter name: (_) @name value: (_) @value)
  (typed_default_parameter name: (_) @name value: (_) @value)
  (pair key: (_) @name value: (_) @value)
  (binary_operator left: (_) @name operator: "/" right: (_) @value)
]]=]
local FUNCTIONS = [[(function_definition name: (identifier) @name body: (block) @value)]]
local RETURNS = [[(return_statement) @value]]

-- Whether a name (an identifier, attribute, string key ...) says it holds a peak: one of the
-- words, or one of the entry's GPU names (`"h100": 989e12`, `A100_BF16 = 312e12`).
local function peak_name(text, models)
	local t = text:lower()
	for _i, w in ipairs(PEAK_WORDS) do if t:find(w, 1, true) then return true end end
	for _i, m in ipairs(models or {}) do if t:find(m, 1, true) then return true end end
	return false
end

local function inside(node, outer)
	return outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte
end

local CALL_FIRST = [[(call function: (_) @func arguments: (argument_list . (string) @first))]]
local CALL_KEYWORD = [[(call function: (_) @func
  arguments: (argument_list (keyword_argument name: (identifier) @k value: (_) @v) @kw))]]
local CALL_ARGS = [[(call function: (_) @func arguments: (argument_list) @args)]]
local NUMBERS = [[[(float) (integer)] @n]]

-- Whether a file is a container file: Dockerfile, Dockerfile.<x>, Dockerfile-<x>,
-- <x>.Dockerfile or Containerfile, in any case.
local function container_file(path)
	local base = path:match("[^/]*$"):lower()
	return base == "dockerfile" or base == "containerfile" or base:match("^dockerfile[%.%-_]") ~= nil
		or base:match("^containerfile[%.%-_]") ~= nil or base:match("%.dockerfile$") ~= nil
end

-- A FROM image with the ARG defaults known so far put in for `$NAME`, `${NAME}` and
-- `${NAME:-default}` (a name without a default gives its own default or nothing).
local function substitute(image, args)
	local function value(name, default)
		return args[name] or default or ""
	end
	return (image:gsub("%${([%a_][%w_]*):%-([^}]*)}", value):gsub("%${([%a_][%w_]*)}", value)
		:gsub("%$([%a_][%w_]*)", value))
end

-- The image reference as container_images.json matches it: lower-cased, without the
-- default registry (docker.io/, index.docker.io/) or its library/ namespace.
local function image_key(image)
	local k = image:lower():gsub("^index%.docker%.io/", ""):gsub("^docker%.io/", "")
	return (k:gsub("^library/", ""))
end

-- The container_images.json entry an image reference matches, or nil.
local function cuda_image(images, image)
	local k = image_key(image)
	for _i, e in ipairs(images) do
		for _j, p in ipairs(e.patterns) do
			if k:find(p) then return e end
		end
	end
	return nil
end

-- The FROM lines of a container file whose image is built for NVIDIA GPUs:
-- {line=, col=, end_col=, image= (as written), base= (with ARG defaults put in), entry=}.
local function cuda_bases(ctx, path, images)
	local out, args = {}, {}
	for n, line in ipairs(ctx.lines(path) or {}) do
		local name, default = line:match("^%s*[Aa][Rr][Gg]%s+([%a_][%w_]*)%s*=%s*(%S+)")
		if name then args[name] = default:gsub("^[\"'](.*)[\"']$", "%1") end
		local rest = line:match("^%s*[Ff][Rr][Oo][Mm]%s+()")
		if rest then
			-- the first word that is no option (--platform=...) is the image
			local at, image = rest, nil
			for s, word in line:gmatch("()(%S+)", rest) do
				if word:sub(1, 2) ~= "--" then at, image = s, word break end
			end
			local base = image and substitute(image, args)
			local e = base and cuda_image(images, base)
			if e then
				out[#out + 1] = { line = n, col = at, end_col = at + #image, image = image, base = base, entry = e }
			end
		end
	end
	return out
end

return {
	id = "assess.nvidia_only",
	phase = "assess",
	title = _("Constructs that only work on NVIDIA GPUs (profiler activities, fusers, compile backends, tensor type names ...)"),
	severity = "warning",
	category = "device",
	description = _("Finds what only has a meaning on NVIDIA hardware even where `cuda` is not written: "
		.. "ProfilerActivity.CUDA, TorchScript's nvFuser switches, torch.compile with the TensorRT or "
		.. "cudagraphs backend, barrier(device_ids=...), 'torch.cuda.FloatTensor' type names, "
		.. "torch.get_autocast_gpu_dtype() and hard-coded NVIDIA peak FLOPS in utilisation "
		.. "formulas, using nvidia_only.json, and names the NPU counterpart where there is one. "
		.. "Also finds a container file (Dockerfile, *.Dockerfile, Containerfile) whose FROM names an "
		.. "image built for NVIDIA GPUs (nvidia/cuda, pytorch/pytorch with a CUDA tag, nvcr.io/nvidia), "
		.. "using container_images.json. And calls of a library timer that synchronizes CUDA only "
		.. "(ultralytics' time_sync, library_devices.json), whose times on the NPU stop before the device "
		.. "is done unless transfer_to_npu is in use (info)."),
	triggers = function(data)
		local out = {}
		for _i, e in ipairs(data("nvidia_only").entries) do
			for _j, t in ipairs(entry_triggers(e)) do out[#out + 1] = t end
		end
		for _i, e in ipairs(data("library_devices").entries) do
			if e.kind == "sync" then out[#out + 1] = e.name:match("[%a_][%w_]*$") end
		end
		return out
	end,
	run = function(ctx)
		local names, args, keywords, strings, numbers = {}, {}, {}, {}, {}
		for _i, e in ipairs(ctx.data("nvidia_only").entries) do
			if e.kind == "name" then names[e.name] = e
			elseif e.kind == "argument" then args[#args + 1] = e
			elseif e.kind == "keyword" then keywords[#keywords + 1] = e
			elseif e.kind == "string" then strings[#strings + 1] = e
			elseif e.kind == "number" then numbers[#numbers + 1] = e
			end
		end
		local function report(path, node, text, e, npu, key)
			local suggestion
			if e.kind == "number" then
				suggestion = _("Use the peak of the Ascend chip the job runs on, from its datasheet, and keep it in the configuration rather than in the code.")
			elseif npu and e.fix then
				suggestion = _("On the NPU write `{npu}` instead, and {fix}.", { npu = npu, fix = _(e.fix) })
			elseif npu then
				suggestion = _("On the NPU write `{npu}` instead.", { npu = npu })
			else
				suggestion = _("Remove it, or rewrite this part for the NPU: there is no NPU counterpart.")
			end
			ctx.report{
				file = path, node = node, severity = e.severity, category = e.category, key = key,
				message = _("`{text}` only has a meaning on NVIDIA GPUs: {notes}.", { text = text, notes = _(e.notes) }),
				suggestion = suggestion,
				data = { construct = e.name },
			}
		end
		local images = ctx.data("container_images").entries
		for _i, path in ipairs(ctx.files()) do
			for _j, b in ipairs(container_file(path) and cuda_bases(ctx, path, images) or {}) do
				local a = { image = b.base, written = b.image, what = _(b.entry.notes) }
				ctx.report{
					file = path, line = b.line, col = b.col, end_line = b.line, end_col = b.end_col,
					severity = "warning", category = "environment", key = "image",
					message = b.image == b.base
						and _("`FROM {image}` builds the container on {what}; an Ascend host, with no NVIDIA GPU or driver, cannot run it.", a)
						or _("`FROM {written}` builds the container on `{image}`, {what}; an Ascend host, with no NVIDIA GPU or driver, cannot run it.", a),
					suggestion = _("Base the image on one with CANN and torch_npu for the target NPU, and run the container with the NPU devices (/dev/davinci<N>, /dev/davinci_manager, /dev/devmm_svm, /dev/hisi_hdc) and the host's /usr/local/Ascend/driver mounted into it."),
					data = { construct = b.entry.name },
				}
			end
		end
		-- under automatic migration transfer_to_npu points torch.cuda at torch.npu, and a
		-- library's CUDA-only sync waits for the NPU
		local auto = cuda.auto(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			local map = refs.aliases(ctx, path)
			for _j, c in ipairs(auto and {} or cuda.library_syncs(ctx, path, map)) do
				local a = { call = words.clip(c.call.text, 40), name = c.name }
				ctx.report{
					file = path, node = c.call, severity = "info", category = "performance", key = "sync",
					message = _("`{call}` is `{name}`, which synchronizes CUDA only (when torch.cuda.is_available()): on the NPU, without transfer_to_npu, it waits for nothing, and the time it returns stops before the device's work is done.", a),
					suggestion = _("Time NPU work with torch.npu.synchronize() before reading the clock, or import torch_npu.contrib.transfer_to_npu, which points torch.cuda at torch.npu."),
					data = { construct = c.name },
				}
			end
			if next(names) then
				-- the arguments of each call by its callee's position: a switch called with one
				-- of its entry's inert arguments (nvFuser turned off) leaves nothing to port
				local call_args
				for _j, r in ipairs(refs.dotted(ctx, path, map)) do
					local e = refs.lookup(names, r.resolved)
					if e and e.inert_args then
						if not call_args then
							call_args = {}
							for _k, m in ipairs(ctx.query(path, CALL_ARGS) or {}) do
								call_args[m.func.start_byte] = m.args.text:gsub("%s+", "")
							end
						end
						local given = call_args[r.node.start_byte]
						if given and member(e.inert_args, given) then e = nil end
					end
					if e then report(path, r.node, r.text, e, e.npu) end
				end
			end
			local function callee(func)
				local d = py.dotted(func.text)
				return d and py.expand(map, d)
			end
			if #args > 0 then
				for _j, m in ipairs(ctx.query(path, CALL_FIRST) or {}) do
					local value = py.string_value(m.first.text)
					local name = callee(m.func)
					for _k, e in ipairs(args) do
						if name == e.name and member(e.values, value) then
							report(path, m.first, py.dotted(m.func.text) .. "(" .. m.first.text .. ")", e, e.npu)
						end
					end
				end
			end
			if #keywords > 0 then
				for _j, m in ipairs(ctx.query(path, CALL_KEYWORD) or {}) do
					local name = callee(m.func)
					for _k, e in ipairs(keywords) do
						-- `device_ids=device_ids` forwards a parameter of a wrapper (DeepSpeed's
						-- own barrier): the value comes from its callers, it names no GPU here
						local forwarded = m.v.type == "identifier" and m.v.text == m.k.text
						-- in a branch only NCCL takes (`if get_backend() == "nccl":`), the NPU
						-- never runs it: the code already does what the NPU needs
						if name == e.call and m.k.text == e.keyword and not forwarded
							and not cuda.nccl_only_branch(ctx, path, m.kw.start_byte) then
							local value = m.v.type == "string" and py.string_value(m.v.text)
							if not e.values or member(e.values, value) then
								report(path, m.kw, m.kw.text, e, e.npu)
							end
						end
					end
				end
			end
			if #strings > 0 then
				local people = refs.message_strings(ctx, path)
				for _k, e in ipairs(strings) do
					for _j, s in ipairs(py.strings(ctx, path, e.pattern) or {}) do
						-- a name rewritten to its NPU form is not looked for in an f-string,
						-- whose fields may make it another name; a command is a command there too
						if not people[s.node.start_byte] and (not e.rewrite or s.prefix:find("f", 1, true) == nil) then
							local npu = e.rewrite and ("'" .. s.value:gsub(e.rewrite[1], e.rewrite[2]) .. "'") or e.npu
							report(path, s.node, s.node.text, e, npu)
						end
					end
				end
			end
			if #numbers > 0 then
				local named, funcs, returns
				-- whether the code around the literal uses it as entry e's peak
				local function used_as_peak(node, e)
					named = named or ctx.query(path, NAMED_VALUE) or {}
					for _k, m in ipairs(named) do
						if inside(node, m.value) and peak_name(m.name.text, e.models) then return true end
					end
					funcs = funcs or ctx.query(path, FUNCTIONS) or {}
					returns = returns or ctx.query(path, RETURNS) or {}
					for _k, r in ipairs(returns) do
						if inside(node, r.value) then
							for _l, f in ipairs(funcs) do
								if inside(r.value, f.value) and peak_name(f.name.text, e.models) then return true end
							end
						end
					end
					return false
				end
				for _j, m in ipairs(ctx.query(path, NUMBERS) or {}) do
					local v = tonumber((m.n.text:gsub("_", "")))
					for _k, e in ipairs(numbers) do
						for _l, want in ipairs(e.values) do
							if v and math.abs(v - want) <= want * 1e-9 then
								if used_as_peak(m.n, e) then report(path, m.n, m.n.text, e) end
								break
							end
						end
					end
				end
			end
		end
	end,
}
