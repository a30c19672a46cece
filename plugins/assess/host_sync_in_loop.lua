-- assess.host_sync_in_loop: host-device synchronisation inside loops.

local host = require("host")
local py = require("py")
local refs = require("refs")
local words = require("words")

local QUERY = [[
(for_statement left: (_) @lvar body: (block) @loop)
(while_statement body: (block) @loop)
(call function: (attribute object: (_) @obj attribute: (identifier) @m (#any-of? @m "item" "cpu" "tolist" "numpy")) arguments: (argument_list) @args) @sync
(call function: (attribute object: (_) @tobj attribute: (identifier) @tm (#eq? @tm "to")) arguments: (argument_list) @targs) @tocall
(subscript value: (attribute object: (_) @dobj attribute: (identifier) @dattr (#eq? @dattr "data")) subscript: (integer)) @dsub
(assignment left: (subscript) @dstore)
(augmented_assignment left: (subscript) @dstore)
(call function: (identifier) @conv arguments: (argument_list . (_) @cval .) (#any-of? @conv "float" "int" "bool")) @ccall
(assignment left: (identifier) @alhs right: (_) @arhs)
(if_statement condition: (_) @cond consequence: (block) @ifbody)
(elif_clause condition: (_) @cond consequence: (block) @ifbody)
(binary_operator left: (_) @ml operator: "%") @mod
(call function: (_) @wf (#match? @wf "(^|[.])(save|savez|savez_compressed|savetxt|dump|write|writerow|writerows|create_dataset|tofile)$")) @wcall
(function_definition name: (identifier) @fn (#match? @fn "[Ss]ave|SAVE|[Ee]xport|EXPORT|[Dd]ump|DUMP|[Ww]rite|WRITE")) @wdef
(assignment left: (_) @flhs right: (_) @frhs)
(call function: (attribute object: (identifier) @mobj attribute: (identifier) @mm (#match? @mm "^(append|extend|insert)$|[^_]_$")) arguments: (argument_list) @margs) @mcall
]]

-- Tensor methods and attributes whose result is a host value read from the tensor's
-- metadata, never its data: `int(t.data_ptr())`, `int(t.size(0))`, `int(t.shape[1])`
-- wait for nothing.
local METADATA = { data_ptr = true, size = true, numel = true, nelement = true, dim = true, ndimension = true,
	element_size = true, stride = true, storage_offset = true, get_device = true, is_contiguous = true }

-- Whether an expression is a tensor's metadata (its address, sizes, element count, rank)
-- or the length of something: a host integer.
local function metadata(text)
	if text:match("^len%b()$") then return true end
	local m = text:match("%.([%a_][%w_]*)%b()$")
	if m and METADATA[m] then return true end
	return text:match("%.shape%b[]$") ~= nil or text:match("%.shape$") ~= nil or text:match("%.ndim$") ~= nil
end

-- The synchronize calls whose name resolves to one (torch.npu's is the same wait on the NPU).
local SYNCHRONIZE = { ["torch.cuda.synchronize"] = true, ["torch.npu.synchronize"] = true,
	["torch_npu.npu.synchronize"] = true }

-- A clock read: time.time(), perf_counter(), monotonic(), time_ns(), timeit's
-- default_timer(), ultralytics' and yolov5's time_sync().
local CLOCKS = { "time%.time%(", "perf_counter%(", "monotonic%(", "time_ns%(", "default_timer%(", "time_sync%(" }

-- The line within two of line n (after it first) that reads the clock: its number and
-- text, or nil. A sync right before or after a clock read is a timing barrier.
local function clock_near(lines, n)
	for _i, k in ipairs({ n + 1, n + 2, n - 1, n - 2 }) do
		local l = lines[k]
		if l then
			local code = l:gsub("#.*$", "")
			for _j, c in ipairs(CLOCKS) do
				if code:find(c) then return k, (code:gsub("^%s+", ""):gsub("%s+$", "")) end
			end
		end
	end
	return nil
end

local function inside(n, outer)
	return n.start_byte >= outer.start_byte and n.end_byte <= outer.end_byte
end

-- The operand of an `and` chain that holds byte b of its text (the whole text when it has
-- no `and`): `step % n == 0` in `val is not None and not acc and step % n == 0`.
local function conjunct_at(text, b)
	local from = 1
	for at, stop in text:gmatch("()%f[%w_]and%f[^%w_]()") do
		if at > b then return text:sub(from, at - 1) end
		from = stop
	end
	return text:sub(from)
end

-- Whether an if's condition holds once every few iterations: a `%` test compared with ==
-- (`step % n == 0`, `(i + 1) % k == 0`) or negated (`not step % 10`), with no `or` or
-- `!=` that would let most iterations through; another operand of an `and` (`not
-- is_accumulating and step % n == 0`) only narrows it further.
local function periodic(cond, mods)
	local text = cond.text
	local modulo
	for _i, m in ipairs(mods) do
		if inside(m.mod, cond) and m.ml.type ~= "string" then modulo = m.mod end
	end
	if not modulo or text:find("%f[%w_]or%f[^%w_]") then return false end
	local test = conjunct_at(text, modulo.start_byte - cond.start_byte + 1)
	if test:find("!=", 1, true) then return false end
	local negated = test:find("%f[%w_]not%f[^%w_]") ~= nil
	local equal = test:find("==", 1, true) ~= nil
	return equal ~= negated
end

-- The names an expression reads (a set): its identifiers, not an attribute after a dot
-- nor a word inside a string.
local function names_in(text)
	local out = {}
	text = text:gsub("%b\"\"", ""):gsub("%b''", "")
	for at, name in text:gmatch("()([%a_][%w_]*)") do
		if not text:sub(1, at - 1):match("%.%s*$") then out[name] = true end
	end
	return out
end

-- The names an assignment's target binds (`x`, `a, b`) and the name whose object it
-- stores into (`buf[i] = v`: buf), as two lists; an attribute target gives neither.
local function target_names(lhs)
	if lhs.type == "identifier" then return { lhs.text }, {} end
	-- `self.balance[i] = v` stores into an attribute, not into the name self
	if lhs.type == "subscript" then return {}, { lhs.text:match("^([%a_][%w_]*)%s*%[") } end
	if lhs.type ~= "pattern_list" and lhs.type ~= "tuple_pattern" then return {}, {} end
	local out = {}
	for n in pairs(names_in(lhs.text)) do out[#out + 1] = n end
	return out, {}
end

-- The names whose values from the iteration before reach the object a sync reads (a set):
-- the object's names, then, walking back over the assignments of loop body l before the
-- sync's statement (which starts at byte at), the names an assignment reads when it binds
-- one of them. A name the loop header binds starts afresh each iteration and is left out.
local function live_into(obj_text, at, l, flows, header)
	local live = names_in(obj_text)
	local before = {}
	for _i, f in ipairs(flows) do
		if inside(f.flhs, l) and f.frhs.end_byte <= at then before[#before + 1] = f end
	end
	table.sort(before, function(a, b) return a.flhs.start_byte > b.flhs.start_byte end)
	for _i, f in ipairs(before) do
		local binds = target_names(f.flhs)
		local hit = false
		for _j, n in ipairs(binds) do hit = hit or live[n] == true end
		if hit then
			for _j, n in ipairs(binds) do live[n] = nil end
			for n in pairs(names_in(f.frhs.text)) do live[n] = true end
		end
	end
	for n in pairs(header or {}) do live[n] = nil end
	return live
end

-- The statements after a sync in loop body l that can pass its value on, in source order:
-- assignments ({flow}) and in-place calls ({mutation}) whose value or arguments hold the
-- sync or start after it.
local function statements_after(s, l, flows, mutations)
	local out = {}
	for _i, f in ipairs(flows) do
		if inside(f.flhs, l) and (inside(s.node, f.frhs) or f.flhs.start_byte >= s.node.end_byte) then
			out[#out + 1] = { at = f.flhs.start_byte, flow = f }
		end
	end
	for _i, m in ipairs(mutations) do
		if inside(m.mcall, l) and (inside(s.node, m.margs) or m.mcall.start_byte >= s.node.end_byte) then
			out[#out + 1] = { at = m.mcall.start_byte, mutation = m }
		end
	end
	table.sort(out, function(a, b) return a.at < b.at end)
	return out
end

-- Where the value a sync reads feeds the next iteration of loop body l: the first
-- statement after it that binds, stores into or changes in place (`token.fill_(v)`,
-- `tokens.append(v)`) a name in live with the value or a name computed from it. Returns
-- the statement's text and line, or nil.
local function carried_to(ctx, path, s, l, live, flows, mutations)
	local derived = {}
	local function carries(node)
		if inside(s.node, node) then return true end
		for n in pairs(names_in(node.text)) do
			if derived[n] then return true end
		end
		return false
	end
	for _i, st in ipairs(statements_after(s, l, flows, mutations)) do
		local f, m = st.flow, st.mutation
		if f and carries(f.frhs) then
			local binds, stores = target_names(f.flhs)
			for _j, n in ipairs(stores) do
				if live[n] then return ctx.node_text(path, f.flhs.start_byte, f.frhs.end_byte), f.flhs.line end
			end
			for _j, n in ipairs(binds) do
				if live[n] then return ctx.node_text(path, f.flhs.start_byte, f.frhs.end_byte), f.flhs.line end
				derived[n] = true
			end
		elseif m and carries(m.margs) and live[m.mobj.text] then
			return m.mcall.text, m.mcall.line
		end
	end
	return nil
end

-- The byte where the statement holding a sync starts: the assignment whose value holds
-- it, else the sync itself.
local function statement_start(s, flows)
	local at = s.node.start_byte
	for _i, f in ipairs(flows) do
		if inside(s.node, f.frhs) and f.flhs.start_byte < at then at = f.flhs.start_byte end
	end
	return at
end

return {
	id = "assess.host_sync_in_loop",
	phase = "assess",
	title = _("Host-device synchronisation inside loops (.item(), .cpu(), synchronize())"),
	severity = "info",
	category = "performance",
	description = _("Finds .item(), .cpu(), .to(\"cpu\") (not non_blocking), .tolist(), .numpy(), torch.cuda.synchronize(), a tensor's "
		.. "element read with .data[i] and float()/int()/bool() of a tensor (a `.data` chain, a torch "
		.. "call, an attribute of a module the loop calls, a name the loop assigns from one) inside "
		.. "for/while loop bodies. Each one makes the host wait for the device; on an NPU, where "
		.. "operators are dispatched through a task queue, a sync every step can leave the device "
		.. "idle. Not an error: a note for the tune phase. float()/int() of a tensor's metadata (data_ptr(), "
		.. "size(), numel(), shape, len()) reads no data and is not reported. Values the code shows to be on the host "
		.. "already (numpy arrays, tensors built without a device, the rest of a chain after "
		.. ".cpu(), dataset and collate code run by DataLoader workers) are reported as host-side, not affected (info). "
		.. "A sync under an if testing a modulo (`step % N == 0`, `not step % 10`) runs once every N "
		.. "iterations, which is what the advice asks for, and one whose value goes to a writer "
		.. "(h5py's create_dataset, np.save, json.dump, .write) or sits in a function that saves, exports, "
		.. "dumps or writes is a transfer the output needs, and a synchronize (torch.cuda's or torch.npu's) "
		.. "within two lines of a clock read (time.time(), perf_counter()) is the barrier a timing needs, "
		.. "and one whose value the next iteration's device work takes as input (a loop-carried dependence, "
		.. "as in step-by-step generation: `token.fill_(idx)`, `seq = torch.cat([seq, nxt])`, "
		.. "`tokens.append(idx)` of a name the model read earlier in the loop) cannot move after the loop: "
		.. "all are reported as info that weighs "
		.. "nothing (category host_side), so the reader sees them judged, not as waits to remove."),
	triggers = { ".item(", ".cpu(", ".tolist(", ".numpy(", "synchronize", ".data[", "float(", "cpu\"", "cpu'" },
	run = function(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			local loops, syncs, hosts, conds, mods, writers, savers, assigns, convs = {}, {}, {}, {}, {}, {}, {}, {}, {}
			local reads, stores, flows, mutations, headers = {}, {}, {}, {}, {}
			local map = refs.aliases(ctx, path)
			local h = host.file(ctx, path, map)
			-- a sync judged by the value it reads: host-side, or a wait
			local function judge(node, value, what)
				local why = h:why(value, node)
				local list = why and hosts or syncs
				list[#list + 1] = { node = node, obj = value, what = what, why = why }
			end
			local groups = { ccall = convs, alhs = assigns, cond = conds, mod = mods, wcall = writers, wdef = savers,
				flhs = flows, mcall = mutations }
			for _i, m in ipairs(ctx.query(path, QUERY) or {}) do
				if m.loop then
					loops[#loops + 1] = m.loop
					if m.lvar then headers[m.loop.start_byte] = names_in(m.lvar.text) end
				elseif m.sync then
					if m.args.text:match("^%(%s*%)$") then judge(m.sync, m.obj, "." .. m.m.text .. "()") end
				elseif m.tocall then
					if host.to_host(m.targs.text) then judge(m.tocall, m.tobj, ".to" .. words.clip(m.targs.text, 40)) end
				elseif m.dsub then
					-- one element read (x.data[0]), not a slice or a store into the tensor
					if m.dsub.text:match("%.data%[%s*%d+%s*%]$") then reads[#reads + 1] = m end
				elseif m.dstore then
					stores[m.dstore.start_byte] = true
				else
					-- the other matches are kept by kind, for the judgements below
					for key, list in pairs(groups) do
						if m[key] then list[#list + 1] = m end
					end
				end
			end
			for _i, m in ipairs(reads) do
				if not stores[m.dsub.start_byte] then judge(m.dsub, m.dobj, words.clip(m.dsub.text, 60)) end
			end
			for _i, r in ipairs(refs.dotted(ctx, path, map)) do
				if SYNCHRONIZE[r.resolved] then
					syncs[#syncs + 1] = { node = r.node, what = r.text .. "()", barrier = true }
				end
			end
			-- the innermost loop holding a node
			local function loop_of(n)
				local best
				for _i, l in ipairs(loops) do
					if inside(n, l) and (not best or l.start_byte > best.start_byte) then best = l end
				end
				return best
			end
			-- Whether name is called in the loop (`net(im, boxes)`): a module run there,
			-- whose attributes hold what its forward stored.
			local function called_in(name, l)
				local at = l.start_byte
				while true do
					local b = ctx.find(path, name .. "(", at, l.end_byte)
					if not b then return false end
					if b == 0 or not ctx.node_text(path, b - 1, b):find("[%w_.]") then return true end
					at = b + 1
				end
			end
			-- What says an expression in loop l holds a tensor: a `.data` chain, a torch call,
			-- an attribute of a module called in the loop (`net.tp`), or a name the loop
			-- assigns from one of those (`loss = net.loss + net.rpn.loss`).
			local function tensor(text, l, depth)
				if text:find("%.data%f[^%w_]") then return true end
				for dotted in text:gmatch("[%a_][%w_]*%.[%a_][%w_%.]*") do
					if py.expand(map, dotted):sub(1, 6) == "torch." then return true end
					if called_in(dotted:match("^[%a_][%w_]*"), l) then return true end
				end
				local name = text:match("^[%a_][%w_]*$")
				if not name or depth > 2 then return false end
				for _i, a in ipairs(assigns) do
					if a.alhs.text == name and inside(a.alhs, l) and tensor(a.arhs.text, l, depth + 1) then return true end
				end
				return false
			end
			-- float(x.data[0]) is one read, reported once at the read inside
			local function holds_read(n)
				for _i, list in ipairs({ syncs, hosts }) do
					for _j, s in ipairs(list) do
						if inside(s.node, n) then return true end
					end
				end
				return false
			end
			for _i, m in ipairs(convs) do
				local l = not holds_read(m.ccall) and loop_of(m.ccall)
				-- float() of a host value is no sync: the call that moved it is the one reported
				if l and m.cval.type ~= "keyword_argument" and not metadata(m.cval.text) and tensor(m.cval.text, l, 0)
					and not h:why(m.cval, m.ccall) then
					syncs[#syncs + 1] = { node = m.ccall, what = words.clip(m.ccall.text, 60) }
				end
			end
			for _i, s in ipairs(hosts) do
				if loop_of(s.node) then ctx.report(host.not_affected(path, s.node, s.what, s.why, true)) end
			end
			for _i, s in ipairs(syncs) do
				local l = loop_of(s.node)
				local every, writer, saver, clock_line, clock, carried, carried_line
				if l and s.barrier then clock_line, clock = clock_near(ctx.lines(path) or {}, s.node.line) end
				if l then
					for _i, c in ipairs(conds) do
						if inside(c.ifbody, l) and inside(s.node, c.ifbody) and periodic(c.cond, mods) then every = c.cond end
					end
					for _i, w in ipairs(writers) do
						if inside(s.node, w.wcall) then writer = w.wf.text end
					end
					for _i, d in ipairs(savers) do
						if inside(s.node, d.wdef) then saver = d.fn.text end
					end
					local live = live_into((s.obj or s.node).text, statement_start(s, flows), l, flows, headers[l.start_byte])
					carried, carried_line = carried_to(ctx, path, s, l, live, flows, mutations)
				end
				if not l then
					-- not in a loop: nothing to say
				elseif clock then
					ctx.report{
						file = path, node = s.node, category = "host_side",
						message = _("`{call}` before reading the clock (`{clock}` on line {line}) waits for the device so that the time measured covers its work: a barrier the measurement needs, not a wait to remove.",
							{ call = s.what, clock = words.clip(clock, 60), line = clock_line }),
						suggestion = _("Keep it, as torch.npu.synchronize() on the NPU: without it the time measures only how fast operators are queued."),
					}
				elseif writer or saver then
					ctx.report{
						file = path, node = s.node, category = "host_side",
						message = writer and _("`{call}` inside a loop moves each value to the host for `{writer}` to write it: a transfer the output needs, not a wait to remove.", { call = s.what, writer = words.clip(writer, 40) })
							or _("`{call}` inside a loop of `{func}`, which writes values out, moves each to the host to write it: a transfer the output needs, not a wait to remove.", { call = s.what, func = saver }),
						suggestion = _("Nothing to change for the NPU: values written to a file have to be on the host."),
					}
				elseif every then
					ctx.report{
						file = path, node = s.node, category = "host_side",
						message = _("`{call}` runs only when `{cond}` holds, once every few iterations: a periodic read, not a wait on every iteration.", { call = s.what, cond = words.clip(every.text, 60) }),
						suggestion = _("Nothing to change: reading values every N steps is the cheap way to watch them."),
					}
				elseif carried then
					ctx.report{
						file = path, node = s.node, category = "host_side",
						message = _("`{call}` inside a loop reads a value the next iteration's device work takes as input (`{use}`, line {line}): each step needs the one before it, as in step-by-step generation, so the sync cannot move after the loop.",
							{ call = s.what, use = words.clip(carried:gsub("%s+", " "), 60), line = carried_line }),
						suggestion = _("Nothing to move after the loop. Where the host does not need the value itself (to print or write it), keep it on the device: for example sample the index there and pass it on with `input.copy_(idx)`, without `.item()` or `.cpu()`."),
					}
				else
					ctx.report{
						file = path, node = s.node,
						message = _("`{call}` inside a loop makes the host wait for the device on every iteration.", { call = s.what }),
						suggestion = _("Keep values on the device inside the loop (accumulate tensors) and read them with one sync after the loop or every N steps."),
					}
				end
			end
		end
	end,
}
