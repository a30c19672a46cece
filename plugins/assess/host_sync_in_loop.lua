-- assess.host_sync_in_loop: host-device synchronisation inside loops.

local host = require("host")
local refs = require("refs")

local QUERY = [[
(for_statement body: (block) @loop)
(while_statement body: (block) @loop)
(call function: (attribute object: (_) @obj attribute: (identifier) @m (#any-of? @m "item" "cpu" "tolist" "numpy")) arguments: (argument_list) @args) @sync
]]

return {
	id = "assess.host_sync_in_loop",
	phase = "assess",
	title = _("Host-device synchronisation inside loops (.item(), .cpu(), synchronize())"),
	severity = "info",
	category = "performance",
	description = _("Finds .item(), .cpu(), .tolist(), .numpy() and torch.cuda.synchronize() inside "
		.. "for/while loop bodies. Each one makes the host wait for the device; on an NPU, where "
		.. "operators are dispatched through a task queue, a sync every step can leave the device "
		.. "idle. Not an error: a note for the tune phase. Values the code shows to be on the host "
		.. "already (numpy arrays, tensors built without a device, the rest of a chain after "
		.. ".cpu(), dataset and collate code run by DataLoader workers) are reported as host-side, not affected (info)."),
	triggers = { ".item(", ".cpu(", ".tolist(", ".numpy(", "synchronize" },
	run = function(ctx)
		for _i, path in ipairs(ctx.python_files()) do
			local loops, syncs, hosts = {}, {}, {}
			local map = refs.aliases(ctx, path)
			local h = host.file(ctx, path, map)
			for _i, m in ipairs(ctx.query(path, QUERY) or {}) do
				if m.loop then
					loops[#loops + 1] = m.loop
				elseif m.sync and m.args.text:match("^%(%s*%)$") then
					local why = h:why(m.obj, m.sync)
					local list = why and hosts or syncs
					list[#list + 1] = { node = m.sync, what = "." .. m.m.text .. "()", why = why }
				end
			end
			for _i, r in ipairs(refs.dotted(ctx, path, map)) do
				if r.resolved == "torch.cuda.synchronize" then
					syncs[#syncs + 1] = { node = r.node, what = r.text .. "()" }
				end
			end
			local function in_loop(s)
				for _i, l in ipairs(loops) do
					if s.node.start_byte >= l.start_byte and s.node.end_byte <= l.end_byte then return true end
				end
				return false
			end
			for _i, s in ipairs(hosts) do
				if in_loop(s) then ctx.report(host.not_affected(path, s.node, s.what, s.why, true)) end
			end
			for _i, s in ipairs(syncs) do
				if in_loop(s) then
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
