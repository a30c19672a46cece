-- assess.lightning: a project that trains with PyTorch Lightning (or Lightning Fabric). Its
-- device, process group and mixed precision are the settings of Trainer(...) / Fabric(...),
-- not code in the training step, so the route to the NPU is one accelerator the project
-- registers and those settings, not a line-by-line port. Owns the imports of the Lightning
-- entries of gpu_libraries.json (their notes and sources hold the route's facts).

local py = require("py")
local lightning = require("lightning")

local SETTINGS, OTHER, OLD_DISTRIBUTED = lightning.SETTINGS, lightning.OTHER, lightning.OLD_DISTRIBUTED

return {
	id = "assess.lightning",
	phase = "assess",
	title = _("PyTorch Lightning training (Trainer and Fabric settings)"),
	severity = "warning",
	category = "libraries",
	description = _("Finds a project that trains with PyTorch Lightning or Lightning Fabric and every "
		.. "Trainer(...) or Fabric(...) whose accelerator, gpus, devices, strategy or precision settings "
		.. "put the run on NVIDIA GPUs. Lightning has no NPU accelerator of its own and none is "
		.. "published for Ascend, so the route is an Accelerator the project registers as \"npu\" and "
		.. "those settings, not a line-by-line port of the training step."),
	triggers = { "lightning" },
	run = function(ctx)
		local lib_entry = lightning.entry(ctx)
		-- a project whose only Lightning is in its tests (DeepSpeed's integration test) does
		-- not train with Lightning: its Trainers are reported, the project is not
		local files, anchor, lib, trains = 0, nil, nil, false
		for _i, path in ipairs(ctx.python_files()) do
			local imports = lightning.imports(ctx, path)
			for _j, imp in ipairs(imports) do
				-- the import nearest the project's root, outside its tests, names the
				-- project-wide finding
				local depth = select(2, path:gsub("/", "")) + (lightning.is_test(path) and 1000 or 0)
				if not anchor or depth < anchor.depth then
					anchor = { path = path, node = imp.node, depth = depth }
					lib = imp.top
				end
			end
			if #imports > 0 then
				files = files + 1
				trains = trains or not lightning.is_test(path)
				for _j, t in ipairs(lightning.constructors(ctx, path, lightning.keywords(ctx, path))) do
					local c, kind = t.call, t.kind
					local shown, acc, acc_text, gpus = {}, nil, nil, false
					for _k, m in ipairs(t.kws) do
						if SETTINGS[m.k.text] then shown[#shown + 1] = m end
						if m.k.text == "accelerator" then
							acc_text = m.v.text
							acc = m.v.type == "string" and py.string_value(m.v.text)
							acc = acc and acc:lower()
						elseif m.k.text == "gpus" then
							gpus = true
						end
					end
					table.sort(shown, function(a, b) return SETTINGS[a.k.text] < SETTINGS[b.k.text] end)
					local parts = {}
					for k, m in ipairs(shown) do parts[k] = m.kw.text end
					local a = { call = py.dotted(c.func.text) or c.func.text, settings = table.concat(parts, ", "),
						value = acc_text }
					local message, severity
					if acc and OTHER[acc] then
						message = nil
					elseif gpus or acc == "gpu" or acc == "cuda" or (acc and OLD_DISTRIBUTED[acc]) then
						message = _("`{call}(...)` runs Lightning on NVIDIA GPUs ({settings}), and Lightning has no NPU accelerator of its own.", a)
					elseif acc_text and not acc then
						message = _("`{call}(...)` takes its accelerator from `{value}` ({settings}), and no value of it selects the NPU: Lightning has no NPU accelerator of its own.", a)
					elseif #parts > 0 then
						message = _("`{call}(...)` leaves the device to Lightning ({settings}), which picks an NVIDIA GPU where there is one and the CPU on an NPU machine: Lightning has no NPU accelerator of its own.", a)
						severity = "info"
					else
						message = _("`{call}(...)` leaves the device to Lightning, which picks an NVIDIA GPU where there is one and the CPU on an NPU machine: Lightning has no NPU accelerator of its own.", a)
						severity = "info"
					end
					if message then
						ctx.report{
							file = path, node = c.call, severity = severity, message = message,
							suggestion = _("Register an NPU accelerator with Lightning (a subclass of its Accelerator whose register_accelerators() registers it as \"npu\"), then write accelerator=\"npu\" and keep devices; for DDP pass strategy=DDPStrategy(process_group_backend=\"hccl\"), for 16-bit mixed precision plugins=[MixedPrecision(\"16-mixed\", \"npu\")]. Port these settings, not the training step line by line."),
							data = { constructor = kind }, unit = "assess.lightning",
						}
					end
				end
			end
		end
		if anchor and trains then
			ctx.report{
				file = anchor.path, node = anchor.node, key = "project",
				message = _("The project trains with Lightning (`{lib}` is imported in {n} files): the device, the process group and mixed precision are the settings of its Trainer or Fabric.",
					{ lib = lib, n = files }),
				suggestion = lib_entry and lib_entry.notes
					and _("Port it as a whole, not line by line: {notes}.", { notes = _(lib_entry.notes) }) or nil,
				data = { library = lib }, unit = "assess.lightning",
			}
		end
	end,
}
