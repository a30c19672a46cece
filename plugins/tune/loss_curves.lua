-- tune.loss_curves: are the GPU and the NPU loss logs on record for `ferry compare loss`?

local words = require("words")

local function side(label)
	local l = (label or ""):lower()
	if l:find("gpu", 1, true) or l:find("cuda", 1, true) or l:find("nvidia", 1, true) then return "gpu" end
	if l:find("npu", 1, true) or l:find("ascend", 1, true) then return "npu" end
	return nil
end

-- How `ferry compare loss` names an artifact: its label, else "#id".
local function ref(a)
	if a.label and a.label ~= "" and not a.label:find("%s") then return a.label end
	return "#" .. tostring(a.id)
end

return {
	id = "tune.loss_curves",
	phase = "tune",
	evidence = { "loss-log", "comparisons" },
	title = _("GPU and NPU loss curves ready for comparison"),
	severity = "info",
	category = "precision",
	description = _("The first precision check of a migration compares the NPU run's loss curve with the GPU "
		.. "run's. Both logs are ingested with `ferry ingest loss-log FILE --label gpu|npu`; "
		.. "`ferry compare loss gpu npu` then aligns them by step and checks the tolerance "
		.. "(`ferry config tolerance.loss`)."),
	run = function(ctx)
		local newest = {}
		for _i, a in ipairs(ctx.artifacts("loss-log") or {}) do
			local s = side(a.label)
			if s and (not newest[s] or tonumber(a.id) > tonumber(newest[s].id)) then newest[s] = a end
		end
		local g, n = newest.gpu, newest.npu
		local loss = ctx.comparisons().loss
		-- every loss comparison on record, newest first, passing or failing: whether the
		-- newest logs were compared is not whether the deciding comparison read them (a
		-- failure of other data that stands is judged by tune.acceptance, not here)
		local all = loss and loss.compared or {}
		local function reads(side, a)
			return side and (tonumber(side.artifact) == tonumber(a.id) or (a.sha256 and side.sha256 == a.sha256))
		end
		local compared = false
		for _i, c in ipairs(all) do
			if g and n and reads(c.a, g) and reads(c.b, n) then compared = true end
		end
		local latest = all[1]
		if compared then
			return -- the newest pair is compared: tune.acceptance gives the verdict
		elseif g and n and latest then
			-- the comparisons on record are about other runs than the newest now on
			-- record: the sign-off and the report would vouch for data nobody compared (a
			-- newer NPU run that blew up, behind an older pass), so this holds the sign-off
			-- until the newest logs are compared or a person waives it with the reason;
			-- name the logs no comparison read on their side (both, when each was compared
			-- but never with the other)
			local seen_g, seen_n = false, false
			for _i, c in ipairs(all) do
				seen_g = seen_g or reads(c.a, g) or false
				seen_n = seen_n or reads(c.b, n) or false
			end
			if seen_g and seen_n then seen_g, seen_n = false, false end
			local newer = {}
			if not seen_g then
				newer[#newer + 1] = _("GPU: artifact {id}", { id = tostring(g.id) })
			end
			if not seen_n then
				newer[#newer + 1] = _("NPU: artifact {id}", { id = tostring(n.id) })
			end
			ctx.report{
				key = "compare",
				severity = "error",
				message = _("Loss logs newer than the latest comparison (audit event {event}) are on record ({which}); its verdict is about older runs.",
					{ event = tostring(latest.event), which = words.join(newer) }),
				suggestion = _("Run `ferry compare loss {g} {n}` to compare the newest runs; if a newer log is not the run to judge (an experiment), waive this with the reason.",
					{ g = ref(g), n = ref(n) }),
			}
		elseif g and n then
			ctx.report{
				key = "compare",
				message = _("Loss logs of both runs are on record (GPU: artifact {g}, NPU: artifact {n}).", { g = tostring(g.id), n = tostring(n.id) }),
				suggestion = _("Run `ferry compare loss {g} {n}` to align the curves by step and check them against tolerance.loss.",
					{ g = ref(g), n = ref(n) }),
			}
		elseif g then
			ctx.report{
				key = "need-npu",
				message = _("The GPU loss log is on record (artifact {id}) but no NPU loss log is.", { id = tostring(g.id) }),
				suggestion = _("Train on the NPU with the same seed, data and hyper-parameters, save the log and run `ferry ingest loss-log FILE --label npu`; then `ferry compare loss {g} npu`.", { g = ref(g) }),
			}
		elseif n then
			ctx.report{
				key = "need-gpu",
				message = _("The NPU loss log is on record (artifact {id}) but there is no GPU loss log to compare it with.", { id = tostring(n.id) }),
				suggestion = _("Ingest the GPU run's log with `ferry ingest loss-log FILE --label gpu`, then run `ferry compare loss gpu {n}`.", { n = ref(n) }),
			}
		end
	end,
}
