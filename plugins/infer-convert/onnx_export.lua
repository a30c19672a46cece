-- infer-convert.onnx_export: the project's ONNX exports checked against what ATC accepts.
--
-- The exports are those plugins/lib/export.lua finds: torch.onnx.export, the library
-- functions that call it (onnx_exporters.json: ultralytics' torch2onnx) and, through the
-- project's own functions that pass an opset or dynamic axes on to one of these, the
-- values their callers give (yolov5's `export_onnx(model, im, file, 12, ...)`, its
-- `--opset` default through `run(**vars(opt))`): such a value is checked where it is
-- written.
--
-- Facts (plugins/data/atc.json, reference tune-and-inference-formats §4): ATC reads
-- ai.onnx opsets 11-15 on every CANN release from 8.0 on (older 5.0/6.0: 11 only; 7.0
-- and 9.1: up to 18); dynamic dimensions need --input_shape with -1 plus
-- --dynamic_batch_size / --dynamic_dims at conversion. torch.onnx.export exports in eval
-- mode by default (training=TrainingMode.EVAL); with TrainingMode.PRESERVE and no
-- model.eval() before it, dropout and batch-norm may keep their training behaviour.

local py = require("py")
local export = require("export")
local words = require("words")

-- How an exporter is named in a message: a library's function by its own name
-- ("torch2onnx"), torch's exporter in full.
local function short(e) return e.exporter.library and e.func:match("[^.]*$") or e.func end

-- "export_onnx → torch2onnx": the functions a route's value passes, the export last.
local function chain(r)
	local names = {}
	for _i, v in ipairs(r.via) do names[#names + 1] = v.name end
	names[#names + 1] = short(r.export)
	return table.concat(names, " → ")
end

-- "file:line" of a node.
local function at(path, node) return path .. ":" .. node.line end

-- The first line of a call, cut for a message.
local function call_text(node) return words.clip(node.text:match("^[^\n]*"), 60) end

-- What gives a route its value, for the message (see plugins/lib/export.lua, routes).
local function giver(r)
	local site = r.via[1]
	local a = { call = call_text(site.node), site = at(site.path, site.node), param = r.param, fn = r.fn.name,
		v = tostring(r.value), option = r.option, code = r.node.text:match("^[^\n]*") }
	if r.how == "default" then
		return _("The default `{param}={v}` of `{fn}`, which `{call}` ({site}) leaves as it is,", a)
	elseif r.how == "cli" then
		return _("The command line's default `{option} {v}`, which reaches it through `{call}` ({site}),", a)
	elseif r.how == "constant" then
		return _("`{code}`, given through `{call}` ({site}),", a)
	end
	return "`" .. a.call .. "`"
end

local DYNAMIC_ADVICE = _("At conversion give the shape with --input_shape, using -1 for the batch plus --dynamic_batch_size=\"1,2,4,8\" (or --dynamic_dims profiles for other dimensions); infer-convert.atc_command prints the command.")

return {
	id = "infer-convert.onnx_export",
	phase = "infer-convert",
	title = _("ONNX export settings for the ATC converter"),
	severity = "warning",
	category = "export",
	description = _("Checks each ONNX export, by torch.onnx.export or a library function that calls it (ultralytics' "
		.. "torch2onnx, plugins/data/onnx_exporters.json): an opset ATC accepts (11-15 is safe across "
		.. "CANN releases), the model in eval mode for the export (the default; TrainingMode.PRESERVE needs model.eval() first), dynamic axes (which ATC turns "
		.. "into fixed shapes or shape profiles) and constant folding. An opset or dynamic axes that a function of the "
		.. "project passes on to the export are checked where its callers give them: a literal argument, a parameter's "
		.. "default, an argparse default reaching it through `run(**vars(opt))`."),
	triggers = { "onnx" },
	run = function(ctx)
		local atc = ctx.data("atc")
		local lo, hi = atc.safe_opset.min, atc.safe_opset.max
		local all = export.project(ctx)
		local by_path, paths = {}, {}
		for _i, e in ipairs(all.exports) do
			if not by_path[e.path] then
				by_path[e.path] = {}
				paths[#paths + 1] = e.path
			end
			table.insert(by_path[e.path], e)
		end
		for _i, path in ipairs(paths) do
			local calls = by_path[path]
			local evals = py.method_calls(ctx, path, "eval") or {}
			local fns = {}
			for _i, m in ipairs(ctx.query(path, "(function_definition) @fn") or {}) do fns[#fns + 1] = m.fn end
			-- the innermost function holding a node (nil at module level)
			local function scope(node)
				local best
				for _i, f in ipairs(fns) do
					if node.start_byte >= f.start_byte and node.end_byte <= f.end_byte
						and (not best or f.start_byte >= best.start_byte) then best = f end
				end
				return best and best.start_byte or -1
			end
			for _i, e in ipairs(calls) do
				local at_call = e.call
				local kw = e.opset_kw or "opset_version"
				local func = short(e)
				if not e.opset_node and not e.opset_default then
					ctx.report{
						file = path, node = at_call, key = "opset",
						message = _("{func} is called without {kw}, so the opset follows the installed PyTorch and may be newer than ATC reads.",
							{ func = func, kw = kw }),
						suggestion = _("Pass {kw}={lo} (ATC accepts {lo}-{hi} on CANN 8.0; CANN 5.0/6.0 only 11).", { kw = kw, lo = lo, hi = hi }),
					}
				elseif e.opset and (e.opset < lo or e.opset > hi) then
					local v = { v = e.opset, lo = lo, hi = hi, kw = kw, func = func, arg = e.opset_node and e.opset_node.text }
					local message
					if e.opset_default then
						message = _("{func} is called without {kw}, so it exports with its default, opset {v}: outside {lo}-{hi}, the opsets ATC reads on every CANN release from 8.0 on.", v)
					elseif e.opset_source then
						message = _("{kw}={arg} is {v} here, outside {lo}-{hi}, the opsets ATC reads on every CANN release from 8.0 on.", v)
					else
						message = _("{kw}={v} is outside {lo}-{hi}, the opsets ATC reads on every CANN release from 8.0 on.", v)
					end
					ctx.report{
						file = path, node = e.opset_source or e.opset_node or at_call, key = "opset",
						message = message,
						suggestion = _("Export with opset_version between {lo} and {hi} (CANN 7.0 and 9.1 accept up to 18; check your CANN's ATC page before going higher).", { lo = lo, hi = hi }),
					}
				end
				local before = false
				for _i, ev in ipairs(evals) do
					if ev.call.start_byte < at_call.start_byte and ev.args.text:match("^%(%s*%)$")
						and scope(ev.call) == scope(at_call) then before = true end
				end
				-- torch.onnx.export's default, TrainingMode.EVAL, puts the model in eval mode
				-- for the export itself (PyTorch's torch.onnx.export reference, "training");
				-- only PRESERVE exports the mode the model happens to be in
				local preserve = e.training and e.training:match("TrainingMode%.PRESERVE$")
				if e.training and e.training:match("TrainingMode%.TRAINING$") then
					ctx.report{
						file = path, node = e.training_node, key = "training",
						message = _("The model is exported with training=TrainingMode.TRAINING, so dropout and batch-norm keep their training behaviour in the offline model."),
						suggestion = _("Export with the default training mode (EVAL) and call model.eval() before the export."),
					}
				elseif preserve and not before then
					ctx.report{
						file = path, node = at_call, key = "eval",
						message = _("This export keeps the model's current mode (training=TrainingMode.PRESERVE) and no model.eval() comes before it in the same function: dropout and batch-norm may be exported in training mode."),
						suggestion = _("Call model.eval() before torch.onnx.export (and export under torch.no_grad())."),
					}
				end
				-- axes a parameter passes on are reported where the callers give them
				if e.dynamic_node and e.dynamic_node.text ~= "None" and not e.flows.dynamic_axes then
					ctx.report{
						file = path, node = e.dynamic_node, key = "dynamic", severity = "info",
						message = _("`{kw}` makes dimensions of the ONNX model dynamic; ATC compiles fixed shapes.",
							{ kw = e.dynamic_kw or "dynamic_axes" }),
						suggestion = DYNAMIC_ADVICE,
					}
				end
				if e.folding == "False" then
					ctx.report{
						file = path, node = e.folding_node, key = "folding", severity = "info",
						message = _("do_constant_folding=False leaves constant subgraphs in the model for ATC to convert and run."),
						suggestion = _("Export with do_constant_folding=True (the default) unless you need the unfolded graph for debugging."),
					}
				end
			end
		end
		-- the values callers give through the project's functions, where they are written
		local reported = {}
		for _i, r in ipairs(all.routes) do
			local key = r.role .. "\0" .. r.path .. ":" .. r.node.start_byte
			local a = { what = giver(r), chain = chain(r), where = at(r.export.path, r.export.call), v = tostring(r.value),
				lo = lo, hi = hi, code = words.clip(r.node.text:match("^[^\n]*"), 60) }
			if not reported[key] and r.role == "opset" and (r.value < lo or r.value > hi) then
				reported[key] = true
				ctx.report{
					file = r.path, node = r.node, key = "opset",
					message = _("{what} gives the ONNX export of {chain} ({where}) opset {v}: outside {lo}-{hi}, the opsets ATC reads on every CANN release from 8.0 on.", a),
					suggestion = _("Give an opset between {lo} and {hi} here (CANN 7.0 and 9.1 accept up to 18; check your CANN's ATC page before going higher).", a),
				}
			elseif not reported[key] and r.role == "dynamic_axes" and r.value and r.how == "argument" then
				reported[key] = true
				ctx.report{
					file = r.path, node = r.node, key = "dynamic", severity = "info",
					message = _("The dynamic axes `{code}` given here reach the ONNX export of {chain} ({where}): they make dimensions of the ONNX model dynamic; ATC compiles fixed shapes.", a),
					suggestion = DYNAMIC_ADVICE,
				}
			end
		end
	end,
}
