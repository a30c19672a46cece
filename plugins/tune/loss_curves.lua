-- tune.loss_curves: are the GPU and the NPU loss logs on record for `ferry compare loss`?

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
		if g and n then
			ctx.report{
				key = "compare",
				message = string.format("Loss logs of both runs are on record (GPU: artifact %s, NPU: artifact %s).", tostring(g.id), tostring(n.id)),
				suggestion = string.format("Run `ferry compare loss %s %s` to align the curves by step and check them against tolerance.loss.",
					ref(g), ref(n)),
			}
		elseif g then
			ctx.report{
				key = "need-npu",
				message = string.format("The GPU loss log is on record (artifact %s) but no NPU loss log is.", tostring(g.id)),
				suggestion = "Train on the NPU with the same seed, data and hyper-parameters, save the log and run "
					.. "`ferry ingest loss-log FILE --label npu`; then `ferry compare loss " .. ref(g) .. " npu`.",
			}
		elseif n then
			ctx.report{
				key = "need-gpu",
				message = string.format("The NPU loss log is on record (artifact %s) but there is no GPU loss log to compare it with.", tostring(n.id)),
				suggestion = "Ingest the GPU run's log with `ferry ingest loss-log FILE --label gpu`, then run `ferry compare loss gpu "
					.. ref(n) .. "`.",
			}
		end
	end,
}
