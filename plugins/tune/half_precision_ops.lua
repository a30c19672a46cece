-- tune.half_precision_ops: softmax, normalisation and loss computed in 16-bit precision.
--
-- Mixed precision keeps these operators in FP32 on purpose (autocast's float32 list, in
-- plugins/data/fp32_ops.json). Two ways the code defeats that, both visible in the source:
--   an explicit 16-bit dtype= argument (autocast leaves calls with dtype= alone), and
--   an input cast to half/bfloat16 right in the call, outside any autocast region.

local project = require("project")
local py = require("py")
local train = require("train")

local HINT = {
	softmax = N_("softmax needs FP32's range for its exponentials"),
	norm = N_("normalisation sums squares that lose precision in 16 bits"),
	loss = N_("a loss computed in 16 bits loses small differences and can overflow"),
}

return {
	id = "tune.half_precision_ops",
	phase = "tune",
	title = _("Softmax, normalisation or loss forced into 16-bit precision"),
	severity = "warning",
	category = "precision",
	description = _("Automatic mixed precision runs softmax, layer/group norm and the losses in FP32 even in "
		.. "a float16 region, because they need the range and precision. A call with an explicit "
		.. "16-bit dtype= argument, or an input cast with .half()/.to(torch.float16) outside autocast, "
		.. "bypasses that; on the NPU such an operator is a first suspect when the loss curve drifts "
		.. "from the GPU's."),
	triggers = function(data)
		local t = {}
		for _i, e in ipairs(data("fp32_ops").entries) do t[#t + 1] = e.name .. "(" end
		return t
	end,
	run = function(ctx)
		local ops = {}
		for _i, e in ipairs(ctx.data("fp32_ops").entries) do ops[e.name] = e end
		local set = py.any_of("m", ops)
		local q = "((call function: (attribute object: (_) @obj attribute: (identifier) @m) arguments: (argument_list) @args) @call "
			.. set .. ")\n((call function: (identifier) @m arguments: (argument_list) @args) @call " .. set .. ")"
		for _i, path in ipairs(project.program_files(ctx)) do
			local map = py.aliases(ctx, path) or {}
			local regions
			local args_of
			for _i, m in ipairs(ctx.query(path, q) or {}) do
				local op = ops[m.m.text]
				local input, form
				if m.obj then
					local od = py.dotted(m.obj.text)
					local head = od and od:match("^[^.]+")
					local resolved = od and py.expand(map, od .. "." .. m.m.text)
					if resolved and resolved:match("^torch%.") then
						form = "function"
					elseif head and map[head] then
						form = nil -- a function of another library (scipy.special.softmax …)
					else
						form = "method"
						input = m.obj
					end
				else
					local resolved = map[m.m.text]
					if resolved and resolved:match("^torch%.") then form = "function" end
				end
				if form then
					args_of = args_of or train.all_call_args(ctx, path)
					local a = args_of(m.call)
					if form == "function" then input = a.kw.input or a.pos[1] end
					local dt = a.kw.dtype and train.dtype(a.kw.dtype.text, map)
					local why, fix
					if dt == "float16" or dt == "bfloat16" then
						why = _("`{call}` is called with dtype={dtype}, so it runs in {dt} even under autocast: {hint}.",
							{ call = m.m.text, dtype = a.kw.dtype.text, dt = dt, hint = _(HINT[op.kind]) })
						fix = _("Drop the dtype argument (or pass dtype=torch.float32) and cast the result back only if the next operator needs 16 bits.")
					elseif input then
						local c = train.half_cast(input.text, map)
						if c then
							regions = regions or train.autocast(ctx, path, map)
							if not train.inside(m.call, regions) then
								why = _("`{call}` gets an input cast to {cast} (`{input}`) outside autocast: {hint}.",
									{ call = m.m.text, cast = c, input = input.text, hint = _(HINT[op.kind]) })
								fix = _("Compute it in FP32 (`.float()` on the input, then cast the result back if needed), or run the forward pass under torch.npu.amp.autocast, which keeps it in FP32.")
							end
						end
					end
					if why then
						ctx.report{
							file = path, node = m.call,
							message = why,
							suggestion = fix,
							data = { op = op.name, source = op.source },
						}
					end
				end
			end
		end
	end,
}
