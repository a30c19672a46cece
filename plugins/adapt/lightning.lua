-- adapt.lightning: the settings that put a PyTorch Lightning run on NVIDIA GPUs, wherever
-- the project writes them: accelerator="gpu"/"cuda" (a Trainer's, a Fabric's, any call's
-- or dict's in a file that imports Lightning), Lightning 1.x's gpus=N, the default of an
-- --accelerator or --gpus option, and `accelerator: gpu` / `gpus: N` in a YAML config.
-- Lightning has no NPU accelerator of its own (gpu_libraries.json), so "npu" there selects
-- nothing until the project registers one: without that registration each setting is left
-- to a person with the route; with it, the accelerator becomes "npu" and gpus=N becomes
-- accelerator="npu", devices=N. A Trainer or Fabric outside the tests that names no
-- accelerator leaves the device to Lightning, which on the NPU host picks the CPU: it is
-- reported too, and given accelerator="npu" where the project registers one.

local py = require("py")
local cuda = require("cuda")
local lightning = require("lightning")

-- accelerator="gpu" in a call, {"accelerator": "gpu"} in a dict, accelerator = "gpu"
local VALUES = [[
(keyword_argument name: (identifier) @k value: (_) @v) @kw
(pair key: (string) @k value: (_) @v) @kw
(assignment left: (_) @k right: (_) @v) @kw
]]

-- The options of an argument parser: add_argument("--gpus", ..., default=...).
local OPTIONS = [[(call function: (attribute attribute: (identifier) @_m (#eq? @_m "add_argument"))
  arguments: (argument_list . (string) @flag (keyword_argument name: (identifier) @k (#eq? @k "default")
  value: (_) @v) @kw))]]

-- The name a setting is given under: an identifier, a dict key's string, an attribute's
-- last name (self.accelerator), an option's flag (--trainer.accelerator).
local function setting_name(node)
	local t = node.type == "string" and py.string_value(node.text) or node.text
	return t and t:match("([%a_][%w_]*)$")
end

-- The GPU accelerator a value names ("gpu", "cuda", Lightning 1.x's "ddp"...), in lower case.
local function gpu_value(text)
	local v = py.string_value(text)
	v = v and v:lower()
	if v and (lightning.GPU[v] or lightning.OLD_DISTRIBUTED[v]) then return v end
end

-- Whether a gpus= value asks for GPUs (not 0, None, an empty list or string).
local function asks_gpus(text)
	local t = text:gsub("^%s+", ""):gsub("%s+$", "")
	return not (t == "0" or t == "None" or t == "null" or t == "~" or t == "[]" or t == "\"\"" or t == "''" or t == "")
end

-- The replacement of a string literal's content, its quotes and prefix kept.
local function requote(text, value)
	local prefix, q = text:match("^([rRuU]*)([\"'])")
	return (prefix or "") .. (q or "\"") .. value .. (q or "\"")
end

-- Whether a Trainer's or Fabric's settings leave the device to Lightning: no accelerator
-- (or "auto"), no gpus=, and no **kwargs that may carry one.
local function leaves_device(t)
	if t.call.args.text:find("[(,]%s*%*%*") then return false end
	for _k, m in ipairs(t.kws) do
		if m.k.text == "gpus" then return false end
		if m.k.text == "accelerator" then return (py.string_value(m.v.text) or ""):lower() == "auto" end
	end
	return true
end

-- The edit giving a call accelerator="npu": in place of accelerator="auto", else before its
-- first keyword argument, else at the end of its arguments.
local function npu_accelerator_edit(t)
	local first
	for _k, m in ipairs(t.kws) do
		if m.k.text == "accelerator" then return py.replace(m.v, requote(m.v.text, "npu")) end
		if not first or m.kw.start_byte < first.start_byte then first = m.kw end
	end
	if first then return { start_byte = first.start_byte, end_byte = first.start_byte, text = "accelerator=\"npu\", " } end
	local args = t.call.args
	local inner = args.text:sub(2, -2)
	local text = inner:match("^%s*$") and "accelerator=\"npu\""
		or (inner:match(",%s*$") and " accelerator=\"npu\"" or ", accelerator=\"npu\"")
	return { start_byte = args.end_byte - 1, end_byte = args.end_byte - 1, text = text }
end

-- The advice for a setting ferry gives the registered NPU accelerator (a.file: the file
-- registering it).
local function registered_advice(a)
	return _("Make sure {file} is imported, and its accelerator registered, before the Trainer or Fabric is built; then run one step on the NPU and check that Lightning reports the NPU, not the CPU.", a)
end

return {
	id = "adapt.lightning",
	phase = "adapt",
	title = _("Lightning settings that put the run on NVIDIA GPUs (accelerator, gpus)"),
	severity = "warning",
	category = "device",
	description = _("Finds, in a project that trains with PyTorch Lightning, every setting that "
		.. "puts the run on NVIDIA GPUs: accelerator=\"gpu\" or \"cuda\" (a Trainer's, a Fabric's, a "
		.. "config dict's), Lightning 1.x's gpus=N, the default of an --accelerator or --gpus option "
		.. "and accelerator: gpu or gpus: N in a YAML config, and every Trainer or Fabric outside "
		.. "the tests that names no accelerator, which Lightning then runs on the CPU of the NPU "
		.. "host. Lightning has no NPU accelerator of its own: where the project registers one as "
		.. "\"npu\", the accelerator becomes \"npu\" and gpus=N becomes accelerator=\"npu\", "
		.. "devices=N; elsewhere each setting is left to a person with the route."),
	triggers = { "lightning" },
	run = function(ctx)
		local entry = lightning.entry(ctx)
		local registered = lightning.npu_registered(ctx)
		local route = entry and entry.notes and _("Port it as a whole, not line by line: {notes}.", { notes = _(entry.notes) })
		local any = false
		-- one setting: a finding, with edits where the project registers an NPU accelerator
		-- and the setting has a plain NPU form
		local function report(path, node, code, new, edits)
			local a = { code = code, new = new, file = registered or "" }
			local f = { file = path, data = { setting = code } }
			if node.line then f.line, f.col = node.line, node.col else f.node = node end
			if registered and edits then
				f.message = _("`{code}` puts Lightning on NVIDIA GPUs; the project registers an NPU accelerator as \"npu\" ({file}), so it becomes `{new}`.", a)
				f.suggestion = registered_advice(a)
				f.edits = edits
			elseif registered then
				f.message = _("`{code}` puts Lightning on NVIDIA GPUs and has no one-for-one NPU form; the project registers an NPU accelerator as \"npu\" ({file}), so ferry leaves the setting to a person.", a)
				f.suggestion = _("Write it with that accelerator: accelerator=\"npu\" with devices=N for gpus=N, and strategy=\"ddp\" (or DDPStrategy(process_group_backend=\"hccl\")) for Lightning 1.x's accelerator=\"ddp\".")
			else
				f.message = _("`{code}` puts Lightning on NVIDIA GPUs, and Lightning has no NPU accelerator of its own: \"npu\" there selects nothing until the project registers one, so ferry leaves the setting to a person.", a)
				f.suggestion = route
			end
			ctx.report(f)
		end
		-- a Trainer or Fabric that leaves the device to Lightning: a finding, with the edit
		-- giving it the NPU accelerator where the project registers one
		local function report_left(path, t)
			local parts = {}
			for k, m in ipairs(t.kws) do parts[k] = m.kw.text end
			local a = { call = py.dotted(t.call.func.text) or t.call.func.text, settings = table.concat(parts, ", "),
				file = registered or "" }
			local f = { file = path, node = t.call.call, data = { setting = a.call }, suggestion = route }
			f.message = registered
				and _("`{call}({settings})` leaves the device to Lightning, which picks the CPU on the NPU host; the project registers an NPU accelerator as \"npu\" ({file}), so it is given accelerator=\"npu\".", a)
				or _("`{call}({settings})` leaves the device to Lightning, which picks the CPU on the NPU host: the run would go on there without an error, and Lightning has no NPU accelerator of its own, so ferry leaves the setting to a person.", a)
			if registered then f.suggestion, f.edits = registered_advice(a), { npu_accelerator_edit(t) } end
			ctx.report(f)
		end
		for _i, path in ipairs(ctx.python_files()) do
			if #lightning.imports(ctx, path) > 0 then
				any = true
				-- Trainer(gpus=N): Lightning 1.x's GPU count
				for _j, t in ipairs(lightning.constructors(ctx, path, lightning.keywords(ctx, path))) do
					local gpus, acc, devices
					for _k, m in ipairs(t.kws) do
						if m.k.text == "gpus" then gpus = m
						elseif m.k.text == "accelerator" then acc = m
						elseif m.k.text == "devices" then devices = m end
					end
					if gpus and asks_gpus(gpus.v.text) then
						local accv = acc and (py.string_value(acc.v.text) or ""):lower()
						local edits
						if not acc then
							edits = { py.replace(gpus.kw, "accelerator=\"npu\", devices=" .. gpus.v.text) }
						elseif lightning.GPU[accv] and not devices then
							edits = { py.replace(gpus.kw, "devices=" .. gpus.v.text) } -- the accelerator's own finding rewrites it
						end
						report(path, gpus.kw, gpus.kw.text, edits and edits[1].text, edits)
					end
				end
				-- Trainer(devices=N) / Fabric(...) with no accelerator: Lightning picks the CPU
				-- on the NPU host, so outside the tests the run would train there unnoticed
				if not lightning.is_test(path) then
					for _j, t in ipairs(lightning.constructors(ctx, path, lightning.keywords(ctx, path))) do
						if leaves_device(t) then report_left(path, t) end
					end
				end
				-- accelerator="gpu" (any call, dict or assignment of the file)
				for _j, m in ipairs(ctx.query(path, VALUES) or {}) do
					local name = setting_name(m.k)
					local v = name == "accelerator" and m.v.type == "string" and gpu_value(m.v.text)
					if v and not cuda.left_to_person(ctx, path, m.v.start_byte) then
						local new = lightning.GPU[v] and requote(m.v.text, "npu")
						report(path, m.kw, m.kw.text:match("^[^\n]*"), new and (m.kw.text:sub(1, m.v.start_byte - m.kw.start_byte) .. new),
							new and { py.replace(m.v, new) })
					end
				end
				-- parser.add_argument("--accelerator", default="gpu"), ("--gpus", default=1)
				for _j, m in ipairs(ctx.query(path, OPTIONS) or {}) do
					local name = setting_name(m.flag)
					if name == "accelerator" and m.v.type == "string" and gpu_value(m.v.text) then
						local v = gpu_value(m.v.text)
						local new = lightning.GPU[v] and requote(m.v.text, "npu")
						report(path, m.kw, py.string_value(m.flag.text) .. " (" .. m.kw.text .. ")",
							new and ("default=" .. new), new and { py.replace(m.v, new) })
					elseif name == "gpus" and asks_gpus(m.v.text) then
						report(path, m.kw, py.string_value(m.flag.text) .. " (" .. m.kw.text .. ")")
					end
				end
			end
		end
		if not any then return end
		-- accelerator: gpu and gpus: N in YAML configs (LightningCLI, Hydra)
		for _i, path in ipairs(ctx.files("%.ya?ml$")) do
			if ctx.find(path, "accelerator") or ctx.find(path, "gpus") then
				local text = ctx.read(path) or ""
				local at, n = 0, 0
				for line in text:gmatch("([^\n]*)\n?") do
					local s = at
					at, n = at + #line + 1, n + 1
					local lead, key, value = line:match("^(%s*([%a_]+)%s*:%s*)(.-)%s*$")
					value = value and value:gsub("%s+#.*$", "")
					local bare = value and (py.string_value(value) or value):lower()
					local code = key and (key .. ": " .. value)
					local node = { line = n, col = #line - #line:match("^%s*(.*)$") + 1, text = code }
					if key == "accelerator" and bare and (lightning.GPU[bare] or lightning.OLD_DISTRIBUTED[bare]) then
						local new = lightning.GPU[bare] and (py.string_value(value) and requote(value, "npu") or "npu")
						report(path, node, code, new and ("accelerator: " .. new),
							new and { { start_byte = s + #lead, end_byte = s + #lead + #value, text = new } })
					elseif key == "gpus" and value and value ~= "" and asks_gpus(value) then
						report(path, node, code)
					end
				end
			end
		end
	end,
}
