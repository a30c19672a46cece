-- devindex: bare integer device indices, which PyTorch reads as CUDA devices, found once
-- for the assess survey (assess.device_index) and the adapt rewrite (adapt.device_index).
--
--   local devindex = require("devindex")
--   refs.report_all(ctx, devindex.sites(ctx, path), "survey")
--
-- `x.to(0)`, `torch.zeros(2, device=1)` and `torch.device(local_rank)` select CUDA device N
-- (plugins/data/device_index.json, with sources). The index is found as a literal, a name
-- the file binds to an integer (`GPU = 0`, `local_rank = int(os.environ["LOCAL_RANK"])`),
-- an argparse option declared with type=int, or a name that holds a device index wherever
-- it appears (`rank`, `local_rank`, `args.gpu`).
--
-- `x.to(N)` and `torch.device(N)` carry their edit (one-way, as every device rewrite of
-- the adapt phase): a literal becomes "npu:N", a name `torch.device("npu", N)`, which
-- also takes an index of None where an f-string "npu:{N}" would fail. device=N in any call
-- is left to a person: the callee may be the project's own function taking an integer;
-- in x.cuda(device=N) it is no site for the adapt phase, whose .npu(device=N) takes it.

local cuda = require("cuda")
local py = require("py")

local devindex = {}

-- Names the file binds to integers: NAME = 3, NAME = int(...), and argparse options with
-- type=int (by their dest: --local-rank -> local_rank).
local function int_names(ctx, path)
	local names, options = {}, {}
	local q = "(assignment left: (identifier) @n right: [(integer) @v (call function: (identifier) @f)])"
	for _i, m in ipairs(ctx.query(path, q) or {}) do
		if m.v or (m.f and m.f.text == "int") then names[m.n.text] = true end
	end
	for _i, c in ipairs(py.method_calls(ctx, path, "add_argument") or {}) do
		local a = c.args.text
		if a:match("type%s*=%s*int[%s,)]") then
			local dest = a:match("dest%s*=%s*['\"]([%w_]+)['\"]")
				or a:match("^%(%s*['\"]%-%-([%w_%-]+)['\"]") or a:match(",%s*['\"]%-%-([%w_%-]+)['\"]")
			if dest then options[(dest:gsub("%-", "_"))] = true end
		end
	end
	return names, options
end

-- Names that hold a process's device index wherever they appear (the DDP tutorial's
-- `model.to(rank)`, `args.local_rank`, `args.gpu`), even when the file does not bind them.
-- `device_id` is not one of them: PyTorch's own init_process_group(device_id=...) takes a
-- torch.device, and code that follows it (Megatron's device_id = torch.device(f"cuda:{r}"))
-- passes a device object under that name; it counts where the file binds it to an integer.
local INDEX_NAMES = {
	rank = true, local_rank = true, gpu = true, gpu_id = true, gpu_idx = true,
	device_idx = true, cuda_id = true, dev_id = true, gpu_index = true,
}

-- The integer device an argument expression names, as written, or nil.
local function integer_device(node, names, options)
	local t = node.text
	if node.type == "integer" then return t end
	if node.type == "identifier" and (names[t] or INDEX_NAMES[t]) then return t end
	if node.type == "attribute" then
		local last = t:match("%.([%w_]+)$")
		if last and (options[last] or INDEX_NAMES[last]) then return t end
	end
	return nil
end

-- The arguments that may be an integer device: the first positional argument of x.to() and
-- x.to_empty() and of a call named like torch.device, and the value of device= in any call.
local CANDIDATE = "[(integer) (identifier) (attribute)]"
local TO_QUERY = "((call function: (attribute object: (_) @obj attribute: (identifier) @m) "
	.. "arguments: (argument_list . " .. CANDIDATE .. " @first)) @call (#any-of? @m \"to\" \"to_empty\"))"
-- calls whose callee passes pred (a predicate on @f), with an argument that may be a device
local function device_query(pred)
	return "((call function: [(identifier) (attribute)] @f "
		.. "arguments: (argument_list . " .. CANDIDATE .. " @first)) @call " .. pred .. ")"
end
local DEVICE_QUERY = device_query("(#match? @f \"device$\")")
local KW_QUERY = "((call function: (_) @f arguments: (argument_list (keyword_argument name: (identifier) @k "
	.. "value: " .. CANDIDATE .. " @v))) @call (#eq? @k \"device\"))"

-- "x".to(...), "{device}".format(device=0): a method of a string literal, not a device
local function of_string(text)
	return text:match("^[%a]*['\"]") ~= nil
end

-- Whether the file is torch code not written for the NPU: it uses torch, and imported no
-- torch_npu as received (DeepSpeed's HCCL backend indexes NPUs; the import the migration
-- adds ports nothing of the indices, which still ask for a GPU).
local function gpu_code(ctx, path, map)
	local torch_used, npu_code = false, false
	for _i, full in pairs(map) do
		torch_used = torch_used or full == "torch" or full:match("^torch%.") ~= nil
		npu_code = npu_code or full == "torch_npu" or full:match("^torch_npu%.") ~= nil
	end
	if npu_code and ctx.baseline_find(path, "torch_npu") == false then npu_code = false end
	return torch_used and not npu_code
end

-- The candidate calls of a file, in source order, outermost first at one place: {call,
-- arg, form} with form "to" (x.to(N)), "device" (torch.device(N)) or "kw" (device=N).
local function candidates(ctx, path, map)
	local found = {}
	for _i, m in ipairs(ctx.query(path, TO_QUERY) or {}) do
		if not of_string(m.obj.text) then found[#found + 1] = { call = m.call, arg = m.first, form = "to", order = 1 } end
	end
	local device_calls = ctx.query(path, DEVICE_QUERY) or {}
	-- torch.device imported under another name (from torch import device as dev)
	local renamed = {}
	for bound, full in pairs(map) do
		if full == "torch.device" and not bound:match("device$") then renamed[bound] = true end
	end
	if next(renamed) then
		for _i, m in ipairs(ctx.query(path, device_query(py.any_of("f", renamed))) or {}) do
			device_calls[#device_calls + 1] = m
		end
	end
	for _i, m in ipairs(device_calls) do
		local callee = py.dotted(m.f.text)
		if callee and py.expand(map, callee) == "torch.device" then
			found[#found + 1] = { call = m.call, arg = m.first, form = "device", order = 1 }
		end
	end
	for _i, m in ipairs(ctx.query(path, KW_QUERY) or {}) do
		if not (m.f.type == "attribute" and of_string(m.f.text)) then
			found[#found + 1] = { call = m.call, arg = m.v, form = "kw", order = 2 }
		end
	end
	table.sort(found, function(a, b)
		if a.call.start_byte ~= b.call.start_byte then return a.call.start_byte < b.call.start_byte end
		if a.call.end_byte ~= b.call.end_byte then return a.call.end_byte > b.call.end_byte end
		return a.order < b.order
	end)
	return found
end

-- The text that names NPU device index in place of the bare integer, or nil when the
-- file has no `torch` to build a device with: "npu:0" for a literal, else
-- torch.device("npu", index); for torch.device(N) the arguments "npu", N.
local function npu_form(c, index, map)
	if c.form == "device" then return '"npu", ' .. index end
	if index:match("^%d+$") then return '"npu:' .. index .. '"' end
	if map.torch == "torch" then return 'torch.device("npu", ' .. index .. ")" end
	return nil
end

-- Whether a call is x.cuda(...) or, once rewritten, x.npu(...).
local function moves_itself(text)
	local head = text:match("^[^(]*")
	return head:match("%.cuda%s*$") ~= nil or head:match("%.npu%s*$") ~= nil
end

-- The sites of bare integer devices in a file (refs.report sites): a warning each, with
-- the edit of its argument for x.to(N) and torch.device(N) unless the strategy is the
-- automatic one (transfer_to_npu rewrites an integer given to .to() at run time).
function devindex.sites(ctx, path)
	local map = py.aliases(ctx, path) or {}
	if not gpu_code(ctx, path, map) then return {} end
	local facts = {}
	for _i, e in ipairs(ctx.data("device_index").entries) do facts[e.name] = e end
	local out, names, options = {}, nil, nil
	for _i, c in ipairs(candidates(ctx, path, map)) do
		if not names then names, options = int_names(ctx, path) end
		local index = integer_device(c.arg, names, options)
		if index then
			local named = index:match("^%d+$") and ('"npu:' .. index .. '"') or ('f"npu:{' .. index .. '}"')
			local a = { index = index, named = named }
			local advice = {
				to = _("Name the device: `.to({named})` or `torch.device(\"npu\", {index})`. (transfer_to_npu rewrites an integer given to `.to()`, but explicit migration does not.)", a),
				kw = _("Name the device: `device={named}` or `device=torch.device(\"npu\", {index})`. (transfer_to_npu rewrites an integer device= of the functions it wraps, but explicit migration does not.)", a),
				device = _("Name the device: `torch.device(\"npu\", {index})`; transfer_to_npu does not rewrite an integer given to torch.device.", a),
			}
			local new = c.form ~= "kw" and not cuda.auto(ctx) and npu_form(c, index, map)
			out[#out + 1] = {
				file = path, node = c.call,
				message = _("`{call}` passes `{index}` as the device: PyTorch reads a bare integer there as a CUDA device index, so on the NPU machine this asks for a GPU.",
					{ call = c.call.text:gsub("%s+", " "), index = index }),
				suggestion = advice[c.form],
				data = { source = c.form == "device" and facts.integer_is_cuda.source or facts.transfer_to_npu_to.source },
				edits = new and { py.replace(c.arg, new) } or nil,
				-- x.cuda(device=rank): adapt.device_calls makes it x.npu(device=rank), an NPU index
				only = c.form == "kw" and moves_itself(c.call.text) and "survey" or nil,
			}
		end
	end
	return out
end

return devindex
