-- assess.gpu_libraries: third-party GPU libraries in imports and dependency files.

local guard = require("guard")
local inf = require("inference")
local py = require("py")
local project = require("project")
local refs = require("refs")
local words = require("words")

local function norm(name) return (name:lower():gsub("_", "-")) end

-- Compares dotted version strings numerically; returns -1, 0 or 1.
local function vcmp(a, b)
	local ai, bi = a:gmatch("%d+"), b:gmatch("%d+")
	while true do
		local x, y = ai(), bi()
		if not x and not y then return 0 end
		x, y = tonumber(x or 0), tonumber(y or 0)
		if x ~= y then return x < y and -1 or 1 end
	end
end

-- The piece of work a library's findings are part of, for the effort estimate: the
-- library, or the check that owns it (Lightning's three packages, and every Trainer and
-- Fabric assess.lightning reports, are one port of Lightning).
local function unit_of(e) return e.owner or e.name end

-- Requirement strings in a dependency file: list of {text=, line=, col=}.
local function requirements(ctx, path)
	local out, lines = {}, ctx.lines(path) or {}
	if path:match("%.txt$") then
		for i, l in ipairs(lines) do
			local lead, req = l:match("^(%s*)([%w][%w%-_%.]*[^#]*)")
			if req and not l:match("^%s*%-") then out[#out + 1] = { text = req, line = i, col = #lead + 1 } end
		end
	elseif path:match("pyproject%.toml$") then
		-- [project] dependencies = [...] and every array of [project.optional-dependencies]
		local section, in_array = "", false
		for i, l in ipairs(lines) do
			local sec = (not in_array) and l:match("^%s*%[([^%]]+)%]%s*$")
			if sec then
				section = sec
			else
				local from = 1
				if not in_array then
					local key_end = l:match("^%s*dependencies%s*=%s*%[()") if section ~= "project" then key_end = nil end
					if section == "project.optional-dependencies" then key_end = l:match("^%s*[%w%-_]+%s*=%s*%[()") end
					if key_end then in_array, from = true, key_end end
				end
				if in_array then
					local part = l:sub(from)
					for s, q in part:gmatch("()[\"']([^\"']+)[\"']") do
						if q:match("^[%w][%w%-_%.]*") then out[#out + 1] = { text = q, line = i, col = from + s } end
					end
					if part:find("]", 1, true) then in_array = false end
				end
			end
		end
	end
	return out
end

return {
	id = "assess.gpu_libraries",
	phase = "assess",
	title = _("Third-party libraries and their Ascend support (apex, flash_attn, xformers, triton, deepspeed, ...)"),
	severity = "warning",
	category = "libraries",
	description = _("Finds imports of third-party libraries that depend on CUDA, and the same names in "
		.. "requirements*.txt, setup.py and pyproject.toml, using gpu_libraries.json: some have an "
		.. "NPU counterpart, some have none and their features must be replaced, some run through an "
		.. "adapted build or adaptor (triton-ascend, MindSpeed), some support Ascend themselves "
		.. "(DeepSpeed, MMCV) or through torch_npu (transformers, accelerate, peft, trl) from a minimum version. "
		.. "The project's own packages are never taken for a library: a project that is one of the "
		.. "listed stacks (Megatron-LM, DeepSpeed) is named once for the whole project. A deployment target for "
		.. "NVIDIA GPUs (TensorRT) blocks nothing: an info where the project exports to ONNX, whose ATC conversion "
		.. "serves on Ascend instead, else a warning of inference work. An import inside try/except whose "
		.. "handler installs the library at run time and imports it again is no fallback, and is said so."),
	-- a Python file is parsed for this check only when it names one of the libraries
	-- (or its own triggers when the name is a common word: `import cuda`, not every torch.cuda)
	triggers = function(data)
		local out = {}
		for _i, e in ipairs(data("gpu_libraries").entries) do
			for _j, t in ipairs(e.triggers or { e.name }) do out[#out + 1] = t end
		end
		return out
	end,
	run = function(ctx)
		local by_import, by_pip = {}, {}
		for _i, e in ipairs(ctx.data("gpu_libraries").entries) do
			by_import[e.name] = e
			for _i, p in ipairs(e.pip or {}) do by_pip[norm(p)] = e end
		end
		-- the message about an import of library e as `top`, by what the library is
		-- (its status; gpu_libraries.json describes them)
		-- the entry for an imported dotted name: the longest listed prefix (cuda.bindings
		-- before cuda), so `from cuda.bindings import runtime` is cuda.bindings
		local function entry_for(full)
			local n = full
			while n do
				if by_import[n] then return by_import[n], n end
				n = n:match("^(.*)%.[^%.]+$")
			end
			return nil
		end
		-- where the project imports a library's Ascend adaptor (MindSpeed's for Megatron-LM),
		-- found by a plain search of its Python files, once per adaptor; false when nowhere.
		-- The import must be code: nothing but indentation before it on its line (a
		-- commented-out `# import mindspeed.megatron_adaptor` adapts nothing)
		local adapted_at = {}
		local function imports_at(p, needle)
			local from = 0
			while true do
				local at = ctx.find(p, needle, from)
				if not at then return false end
				local before = ctx.node_text(p, math.max(0, at - 200), at)
				if (before:match("[^\n]*$")):match("^%s*$") then return true end
				from = at + #needle
			end
		end
		local function adapted(e)
			if not e.adaptor then return false end
			if adapted_at[e.adaptor] == nil then
				adapted_at[e.adaptor] = false
				for _i, p in ipairs(ctx.files("%.py$")) do
					if imports_at(p, "import " .. e.adaptor) then adapted_at[e.adaptor] = p break end
				end
			end
			return adapted_at[e.adaptor]
		end
		local function imported(e, top)
			local a = { lib = top, adaptor = e.adaptor, file = adapted(e), what = e.target and _(e.target.what) }
			if e.target then
				return _("`{lib}` is imported: {what}. It is a deployment target for NVIDIA GPUs, not the NPU: it does not run on an Ascend host, and neither training nor running the model on the NPU needs it.", a)
			end
			if a.file then
				return _("`{lib}` is imported, and its Ascend adaptor `{adaptor}` is imported in `{file}`: it runs on Ascend through it.", a)
			end
			if e.status == "supported" then return _("`{lib}` is imported: a library with NPU support.", a) end
			if e.status == "native" then return _("`{lib}` is imported: a library that supports Ascend NPUs itself.", a) end
			if e.status == "check" then
				return _("`{lib}` is imported: a library that runs on Ascend only through an adapted build or adaptor.", a)
			end
			return _("`{lib}` is imported: a library built for NVIDIA GPUs.", a)
		end
		-- the same for a dependency that names a library without NPU support of its own
		local function depends(e, req)
			local a = { req = req, adaptor = e.adaptor, file = adapted(e), what = e.target and _(e.target.what) }
			if e.target then
				return _("The dependency `{req}` is {what}: a deployment target for NVIDIA GPUs, not the NPU, which the NPU host does not need.", a)
			end
			if a.file then
				return _("The dependency `{req}` runs on Ascend through its adaptor `{adaptor}`, imported in `{file}`.", a)
			end
			if e.status == "check" then
				return _("The dependency `{req}` is a library that runs on Ascend only through an adapted build or adaptor.", a)
			end
			return _("The dependency `{req}` is a library built for NVIDIA GPUs.", a)
		end
		local function works(e) return e.status == "supported" or e.status == "native" end
		-- A deployment target for NVIDIA GPUs (TensorRT) blocks nothing in the migration: its
		-- engines are built and run on NVIDIA GPUs, its code keeps working on GPU hosts and
		-- does not apply on an Ascend host, where the counterpart of an engine is an offline
		-- model: an ONNX export converted by ATC (--framework=5) into a .om, run with AscendCL
		-- and measured with ais_bench (reference tune-and-inference-formats §4, §5.5). With that
		-- route in the project (an ONNX export in the code, an ONNX model or ATC log ingested)
		-- it asks for no change (info); without, serving on Ascend is inference work to plan
		-- (a warning of the inference line's category).
		local ascend_route
		local function routed()
			if ascend_route == nil then ascend_route = inf.signals(ctx).onnx or false end
			return ascend_route
		end
		local function severity_of(e)
			if e.target then return routed() and "info" or "warning" end
			return e.severity
		end
		local function advice(e)
			local a = { min = e.min_version, notes = e.notes and _(e.notes),
				replacement = e.replacement and _(e.replacement) }
			if e.target then
				return routed()
					and _("Keep it for GPU deployments, and do not choose this path on the Ascend host. The Ascend counterpart of an engine is an offline model: the project's ONNX export converted by ATC into a .om for the target SoC (infer-convert.atc_command prints the command), run with AscendCL and measured with ais_bench.")
					or _("Keep it for GPU deployments. To serve the model on Ascend as well, export it to ONNX (torch.onnx.export), convert that with ATC into an offline model (.om) for the target SoC and run it with AscendCL (ais_bench measures it); plan this with `ferry config design.migration_plan.inference yes`.")
			end
			if adapted(e) then
				return e.notes and _("No change needed; {notes}.", a) or _("No change needed.")
			elseif e.adaptor and e.replacement then
				-- an adaptor patches the library: it stays, and runs through the adaptor
				return e.notes and _("Keep it, and run it through {replacement}; {notes}.", a)
					or _("Keep it, and run it through {replacement}.", a)
			elseif works(e) then
				if e.min_version then
					return e.notes and _("No change needed if the version is at least {min}; {notes}.", a)
						or _("No change needed if the version is at least {min}.", a)
				end
				return e.notes and _("No change needed; {notes}.", a) or _("No change needed.")
			elseif e.replacement then
				return e.notes and _("Replace it with {replacement}; {notes}.", a) or _("Replace it with {replacement}.", a)
			else
				return e.notes and _("There is no drop-in NPU replacement: {notes}.", a)
					or _("There is no drop-in NPU replacement: rewrite the code that uses it.")
			end
		end
		-- the project's own packages are its code, not a library it depends on: a project
		-- that holds one of the listed stacks (Megatron-LM, DeepSpeed, or a launcher beside a
		-- copy of one) is named once, at the import of it that is nearest the root and
		-- outside the package (the launcher), or for the whole project when none is
		local own = project.own_modules(ctx)
		local stacks = {}
		local function rank(path, name)
			if path:sub(1, #name + 1) == name .. "/" then return 2 end
			return path:find("/", 1, true) and 1 or 0
		end
		-- the lines where a name bound by an import is called (f(...) or f.x(...)), outside
		-- the try block that imports it; an import inside a function binds the name there only
		local function call_lines(path, name, skip)
			local lines, seen = {}, {}
			local scope
			for _i, d in ipairs(ctx.query(path, "(function_definition) @d") or {}) do
				local n = d.d
				if n.start_byte <= skip.start_byte and skip.end_byte <= n.end_byte
					and (not scope or n.start_byte >= scope.start_byte) then scope = n end
			end
			local q = "(call function: [(identifier) @f (attribute object: (identifier) @f)])"
			for _i, m in ipairs(ctx.query(path, q) or {}) do
				local inside = m.f.start_byte >= skip.start_byte and m.f.end_byte <= skip.end_byte
				local out_of_scope = scope and (m.f.start_byte < scope.start_byte or m.f.end_byte > scope.end_byte)
				if m.f.text == name and not inside and not out_of_scope and not seen[m.f.line] then
					seen[m.f.line] = true
					lines[#lines + 1] = m.f.line
				end
			end
			table.sort(lines)
			return lines
		end
		local LOWER = { error = "warning", warning = "info", info = "info" }
		-- a handler that installs the library at run time or imports it again is no fallback
		-- (guard.lua): the code needs the library all the same, and where it is missing the
		-- install runs pip, which reaches no package index on an air-gapped host (and finds no
		-- Ascend build of an NVIDIA library on any)
		local judge = guard.judge(ctx)
		-- a CUDA backend module beside an NPU one (DeepSpeed's accelerator/cuda_accelerator.py
		-- next to npu_accelerator.py): the project already abstracts the device and picks the
		-- NPU module on Ascend, so what the CUDA module imports is not used there
		local npu_dirs = {}
		for _i, p in ipairs(ctx.files("%.py$")) do
			local dir, base = p:match("^(.-)/?([^/]*)$")
			if base:lower():find("npu", 1, true) then npu_dirs[dir] = true end
		end
		local function beside_npu(path)
			local dir, base = path:match("^(.-)/?([^/]*)$")
			return npu_dirs[dir] and base:lower():find("cuda", 1, true) ~= nil
		end
		for _i, path in ipairs(ctx.python_files()) do
			local seen, cuda_backend = {}, beside_npu(path)
			local imps = py.imports(ctx, path) or {}
			for _i, imp in ipairs(imps) do
				local top = imp.module:match("^[%a_][%w_]*")
				local e, lib
				if top then e, lib = entry_for(py.dotted(imp.full or imp.module) or imp.module) end
				local mine = e and own:has(top, path)
				if mine and not e.owner and not e.generic and own.names[top] then
					local r, best = rank(path, top), stacks[top]
					if not best or r < best.rank then stacks[top] = { rank = r, path = path, node = imp.node } end
				end
				if e and not e.owner and not seen[imp.node.start_byte] and not mine and not cuda_backend then
					seen[imp.node.start_byte] = true
					local v = not works(e) and judge:verdict(path, imp.node, top, imps)
					local g = v and (v.kind == "fallback" or v.kind == "reinstalls") and v.handler
					local message, suggestion, sev = imported(e, lib), advice(e), adapted(e) and "info" or severity_of(e)
					local again, install = g and v.again, g and v.install
					-- a handler that installs another package and imports that is a fallback
					-- (installed at run time, which the advice below speaks of)
					local fallback_install = g and v.fallback_install
					if again or install then
						-- one finding for the import and its second import in the handler
						if again then seen[again.start_byte] = true end
						local a = { lib = lib, caught = g.caught, install = install and words.clip(install.text:match("^[^\n]*"), 60),
							iline = install and install.line, rline = again and again.line }
						message = (install and again)
							and _("`{lib}` is imported inside `try … {caught}`, but the handler is no fallback: it installs the package at run time (`{install}`, line {iline}) and imports it again (line {rline}), so the code needs `{lib}` all the same.", a)
							or install
							and _("`{lib}` is imported inside `try … {caught}`, but the handler is no fallback: it installs the package at run time (`{install}`, line {iline}), so the code needs `{lib}` all the same.", a)
							or _("`{lib}` is imported inside `try … {caught}`, but the handler is no fallback: it imports `{lib}` again (line {rline}), so the code needs it all the same.", a)
						suggestion = install
							and _("{advice} Installing it at run time does not help on the NPU host: what pip fetches is the build for NVIDIA GPUs, and an air-gapped host, as clients' NPU hosts often are, reaches no package index at all, so there the install fails and the import after it too. Install what the NPU host needs beforehand, from wheels brought in, and keep this code from installing at run time there.",
								{ advice = suggestion })
							or suggestion
					elseif g then
						local lines = imp.bound and call_lines(path, imp.bound, g.body) or {}
						local shown = {}
						for k = 1, math.min(#lines, 8) do shown[k] = tostring(lines[k]) end
						local a = { lib = lib, caught = g.caught, name = imp.bound or lib,
							lines = table.concat(shown, ", ") .. (#lines > 8 and ", …" or "") }
						message = #lines == 0
							and _("`{lib}` is imported inside `try … {caught}`: where it is missing, as on an NPU machine, the code falls back to its other path.", a)
							or #lines == 1
							and _("`{lib}` is imported inside `try … {caught}`: where it is missing, as on an NPU machine, the code falls back to its other path. `{name}` is called on line {lines}.", a)
							or _("`{lib}` is imported inside `try … {caught}`: where it is missing, as on an NPU machine, the code falls back to its other path. `{name}` is called on lines {lines}.", a)
						suggestion = _("{advice} Check that the fallback is what should run on the NPU, and that it is fast enough there.",
							{ advice = suggestion })
						if fallback_install then
							suggestion = _("{advice} The handler installs what it falls back to at run time (`{install}`, line {iline}): an air-gapped host, as clients' NPU hosts often are, reaches no package index, so install it on the NPU host beforehand, from wheels brought in.",
								{ advice = suggestion, install = words.clip(fallback_install.text:match("^[^\n]*"), 60), iline = fallback_install.line })
						end
						sev = LOWER[sev] or sev
					end
					ctx.report{
						file = path, node = imp.node, severity = sev,
						message = message,
						suggestion = suggestion,
						key = "import", unit = unit_of(e), category = e.target and "serving" or nil,
						data = { library = e.name, guarded = (g and not again and not install) and true or nil,
							installs = (install or fallback_install) and true or nil },
					}
				end
			end
		end
		for _i, e in ipairs(ctx.data("gpu_libraries").entries) do
			local at = stacks[e.name]
			if not e.owner and not e.generic and own.names[e.name] then
				ctx.report{
					file = at and at.path, node = at and at.node,
					severity = "info", key = "own:" .. e.name, unit = e.name, data = { library = e.name },
					message = _("The project holds `{lib}` itself: its imports of `{lib}` are its own code, not a dependency, and are not reported one by one.",
						{ lib = e.name }),
					suggestion = _("Port it as a whole, not line by line. {advice}", { advice = advice(e) }),
				}
			end
		end
		local function check_req(path, req)
			local name, rest = req.text:match("^([%w][%w%-_%.]*)(.*)$")
			if not name then return end
			local e = by_pip[norm(name)]
			-- a dependency on the project's own package (DensePose's setup.py requiring the
			-- detectron2 it sits in) is the project's code, said once above
			if not e or (not e.owner and not e.generic and own.names[e.name]) then return end
			local shown = req.text:gsub("%s+$", "")
			local sev, msg = e.severity, nil
			if works(e) then
				local v = rest:match("==%s*([%d%.]+)") or rest:match("<=?%s*([%d%.]+)")
				if v and e.min_version and vcmp(v, e.min_version) < 0 then
					sev = "warning"
					msg = _("The dependency `{req}` is older than {min}, the first version that supports the NPU.",
						{ req = shown, min = e.min_version })
				else
					msg = _("The dependency `{req}` is supported on NPU.", { req = shown })
				end
			else
				msg = depends(e, shown)
				sev = adapted(e) and "info" or severity_of(e)
			end
			ctx.report{
				file = path, line = req.line, col = req.col, end_line = req.line, end_col = req.col + #req.text,
				severity = sev, message = msg, suggestion = advice(e), key = name, unit = unit_of(e),
				category = e.target and "serving" or nil,
				data = { library = e.name },
			}
		end
		for _i, path in ipairs(ctx.files()) do
			local base = path:match("[^/]*$")
			if base:match("^requirements.*%.txt$") or base == "pyproject.toml" then
				for _i, req in ipairs(requirements(ctx, path)) do check_req(path, req) end
			elseif base == "setup.py" then
				local q = [[(keyword_argument name: (identifier) @k (#any-of? @k "install_requires" "extras_require") value: (_) @v)]]
				for _i, m in ipairs(ctx.query(path, q) or {}) do
					for _i, s in ipairs(ctx.query(path, "(string) @s") or {}) do
						if s.s.start_byte >= m.v.start_byte and s.s.end_byte <= m.v.end_byte then
							local inner = refs.string_inner(s.s)
							if inner:match("^[%w][%w%-_%.]*[%s%[<>=~!;]?") then
								check_req(path, { text = inner, line = s.s.line, col = s.s.col })
							end
						end
					end
				end
			end
		end
	end,
}
