-- design.parallel: how to spread the model over the planned NPUs.

local plan = require("plan")

return {
	id = "design.parallel",
	phase = "design",
	evidence = { "settings", "env-probe" },
	title = _("Parallel strategy for the model size and the planned cards"),
	severity = "info",
	category = "resources",
	description = _("From the model size (`ferry config model.params_b`), the planned cards and nodes "
		.. "(`target.cards`, `target.nodes`) and the device memory of the target SoC "
		.. "(`target.soc`, from plugins/data/soc_memory.json), advises a layout: tensor parallelism "
		.. "within a node first (at most 8 cards per node), pipeline parallelism across nodes, data "
		.. "parallelism with the cards left, and ZeRO-1 plus activation recomputation when memory is "
		.. "tight. The arithmetic is in the finding: 16 bytes per parameter for mixed-precision Adam "
		.. "plus 20 % headroom. A target SoC of an inference card (`inference_only` in soc_memory.json: "
		.. "Ascend310, Ascend310P*) gets no training plan: a project that trains (loss.backward() in its "
		.. "code) is an error, one that does not gets the inference sizing (2 bytes per parameter)."),
	run = function(ctx)
		local r = plan.parallel(ctx)
		if r.missing then
			for _i, m in ipairs(r.missing) do
				ctx.report{
					key = m.key,
					severity = "warning",
					message = _("The resource plan lacks {why} (`{key}`), so no parallel strategy can be worked out.", m),
					suggestion = _("Record it: `ferry config {key} {example}`.", m),
				}
			end
			return
		end
		if r.unknown_soc then
			ctx.report{
				key = "soc",
				severity = "warning",
				message = _("ferry has no device-memory figure for the SoC `{soc}`, so the memory arithmetic "
					.. "cannot be done.", { soc = r.unknown_soc }),
				suggestion = _("Set one of the known SoCs with `ferry config target.soc NAME` ({known}).", { known = r.known }),
			}
			return
		end
		ctx.metric("parallel_tp", r.tp or 0)
		ctx.metric("parallel_pp", r.pp or 0)
		ctx.metric("parallel_dp", r.dp or 0)
		ctx.report{
			key = "plan",
			severity = r.severity,
			message = r.message,
			suggestion = r.suggestion,
		}
	end,
}
