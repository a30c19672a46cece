-- host: telling values that live on the host (numpy arrays, CPU tensors, Python numbers)
-- from device tensors, so a check of device behaviour (a sync, a dynamic shape) is not
-- reported on code that never touches the device.
--
--   local host = require("host")
--   local h = host.file(ctx, path, map)
--   if h:why(object_node) then ... end   -- "a numpy array", "dataset code", ...
--
-- What the code itself says, read from the syntax tree of one file:
--   * the object is already on the host in the same expression: `t.cpu().numpy()`,
--     `x.detach().cpu().item()`, `t.to("cpu").tolist()` (the earlier call is the one that
--     waits; host.to_host tells a `.to(...)` that moves to the host);
--   * it comes from numpy: `np.where(...)`, a call of a library that returns numpy arrays
--     (OpenCV, pycocotools' masks, SciPy, scikit-image, scikit-learn), `arr` when every
--     assignment to `arr` in the file is such a call or a `.numpy()` / `.tolist()` /
--     `.cpu()` result (and `arr` is no loop variable or parameter, nor updated from itself
--     as in `v = v.item()`);
--   * it is a name inside the body of `if isinstance(name, np.ndarray):` (or a tuple of
--     numpy types);
--   * it is what a call told device='cpu' returns (a project helper
--     `_init_scalar(v, device='cpu', dtype=torch.float64)`), unless a method moves it;
--   * it is a tensor built without a device or with device='cpu' (`torch.tensor(list)`,
--     `torch.zeros(n)`, `torch.from_numpy(a)`, `torch.frombuffer(b)`, the legacy typed
--     constructors of the CPU `torch.ByteTensor(...)`, `torch.FloatTensor(...)`, not
--     `torch.cuda.FloatTensor`), or such a tensor's method result or element
--     (`torch.ByteTensor(s).view(h, w)`) unless a method moves it (`.cuda()`, `.to(...)`,
--     `.type(torch.cuda.FloatTensor)`), and every assignment to the name is such a
--     construction; the same for an attribute of `self` (`self._blocks = torch.arange(n,
--     device='cpu')`) when every assignment to that attribute in the file is;
--   * its name holds a host value where it is read: the assignment that reaches the site
--     (the last one before it in a block holding it, nothing binding the name again in
--     between or later in a loop around the site) gives one, whatever the name held before
--     (`m_id = torch.from_numpy(a)` then `m_id.eq(i).sum().item()`);
--   * the site is dataset code, which runs in DataLoader worker processes on the CPU: the
--     body of a class deriving from a Dataset or Sampler, a `__getitem__`, a collate
--     function;
--   * it is what a function of the file returns on the host: every `return` gives a host
--     value, or the name the function converted in place just before (`data.to_numpy()`
--     then `return data`); an assignment `x = f(x, ...)` of a function of the file that
--     only ever returns its own parameters keeps x where it was;
--   * it is computed by a function of the project (not a library, no device in its name)
--     from host values only: `box_xyxy_to_xywh(arr[i])`.
--   * it is in numpy code: a function that calls numpy (or a library above), or the module's
--     own top level, in a module that imports numpy and never names torch, a CUDA or CPU
--     device or a tensor-only method (`.cpu()`, `.detach()`, `.unsqueeze()` ...), nor
--     imports a project module that names torch (the target layers of py-faster-rcnn,
--     pycocotools). A function of such a module that never calls numpy holds whatever its
--     callers hand it, tensors included.
-- Parameters and loop variables hold whatever they are given, within their function: a
-- parameter named like a host value elsewhere in the file is not one.
-- Anything else is treated as possibly on the device. The reasons are translated texts, for
-- findings that say a site is host-side and not affected (category host_side).

local project = require("project")
local py = require("py")

local host = {}

-- torch constructors that place their result on the CPU unless given device=: the factory
-- functions, the tensors made from numpy arrays or buffers, and the legacy typed
-- constructors of the CPU (torch.cuda.FloatTensor and its kin build on the GPU)
local CPU_BUILDERS = {
	["torch.tensor"] = true, ["torch.as_tensor"] = true, ["torch.from_numpy"] = true,
	["torch.frombuffer"] = true,
	["torch.zeros"] = true, ["torch.ones"] = true, ["torch.empty"] = true, ["torch.full"] = true,
	["torch.arange"] = true, ["torch.linspace"] = true, ["torch.rand"] = true,
	["torch.randn"] = true, ["torch.randint"] = true, ["torch.randperm"] = true,
	["torch.Tensor"] = true, ["torch.ByteTensor"] = true, ["torch.CharTensor"] = true,
	["torch.ShortTensor"] = true, ["torch.IntTensor"] = true, ["torch.LongTensor"] = true,
	["torch.HalfTensor"] = true, ["torch.BFloat16Tensor"] = true, ["torch.FloatTensor"] = true,
	["torch.DoubleTensor"] = true, ["torch.BoolTensor"] = true,
}
local HOST_CALLS = { cpu = true, numpy = true, tolist = true, item = true, to_host__ = true }
-- libraries whose functions return numpy arrays (or Python numbers), never device tensors
local NUMPY_LIBRARIES = { "cv2.", "pycocotools.mask.", "scipy.", "skimage.", "sklearn." }
local DEVICE_CALLS = { cuda = true, npu = true, to = true, to_empty = true, pin_memory = true }

local QUERY = [[
(assignment left: (identifier) @lhs right: (_) @rhs)
(assignment left: (attribute object: (identifier) @obj attribute: (identifier)) @lhs right: (_) @rhs (#eq? @obj "self"))
(class_definition name: (identifier) @cname superclasses: (argument_list) @bases body: (block) @cbody)
(function_definition name: (identifier) @fname parameters: (parameters) @fparams body: (block) @fbody) @fdef
(for_statement left: (_) @bound)
(if_statement condition: (call function: (identifier) @isf arguments: (argument_list . (identifier) @iname . (_) @itype .))
 consequence: (block) @ibody (#eq? @isf "isinstance"))
(block (expression_statement (assignment left: (identifier) @dlhs right: (_) @drhs)) @dstmt) @dblock
(module (expression_statement (assignment left: (identifier) @dlhs right: (_) @drhs)) @dstmt) @dblock
(assignment left: (_) @write)
(augmented_assignment left: (_) @write)
(as_pattern alias: (_) @write)
(named_expression name: (_) @write)
(for_statement) @loopst
(while_statement) @loopst
(_ (for_in_clause left: (_) @cvar)) @comp
]]

-- Whether the argument list of a `.to(...)` call ("(\"cpu\")") moves the tensor to the
-- host and waits for it: the CPU as the first argument or `device=` (a string or
-- torch.device("cpu")), without `non_blocking=True`, which returns before the copy is done.
function host.to_host(args)
	if args:find("non_blocking%s*=%s*True") then return false end
	local cpu = "[\"']cpu[\"']"
	return args:find("^%(%s*" .. cpu) ~= nil or args:find("^%(%s*torch%.device%(%s*" .. cpu .. "%s*%)") ~= nil
		or args:find("device%s*=%s*" .. cpu) ~= nil or args:find("device%s*=%s*torch%.device%(%s*" .. cpu) ~= nil
end

-- Whether the argument list of a `.type(...)` call names a device's tensor type
-- (`.type(torch.cuda.FloatTensor)`, `.type("torch.npu.HalfTensor")`).
local function device_type(args)
	return args:find("%f[%w_]cuda%.") ~= nil or args:find("%f[%w_]npu%.") ~= nil
end

-- The expression with every argument list emptied: "f(a.cpu()).x" -> "f().x"; a move to
-- the host written `.to("cpu")` reads as `.to_host__()`, a move to a device written
-- `.type(torch.cuda.FloatTensor)` as `.cuda()`.
local function spine(text)
	local moves = text:gsub("%.to(%b())", function(args) return host.to_host(args) and ".to_host__()" or nil end)
		:gsub("%.type(%b())", function(args) return device_type(args) and ".cuda()" or nil end)
	return (moves:gsub("%b()", "()"))
end

-- The dotted callee at the head of an expression ("np.stack(...)[0]" -> "np.stack").
local function head_call(text)
	return text:match("^([%a_][%w_%.]*)%s*%(")
end

-- The top-level arguments of the call a text starts with ("f(a[1], g(b, c))[0]" -> {"a[1]",
-- "g(b, c)"}).
local function call_arguments(text)
	local inner = text:match("^[^(]*(%b())")
	if not inner then return nil end
	local out, depth, start, quote = {}, 0, 2, nil
	for i = 2, #inner - 1 do
		local c = inner:sub(i, i)
		if quote then
			if c == quote then quote = nil end
		elseif c == "'" or c == '"' then
			quote = c
		elseif c:match("[%(%[{]") then
			depth = depth + 1
		elseif c:match("[%)%]}]") then
			depth = depth - 1
		elseif c == "," and depth == 0 then
			out[#out + 1] = inner:sub(start, i - 1)
			start = i + 1
		end
	end
	local last = inner:sub(start, #inner - 1)
	if last:match("%S") then out[#out + 1] = last end
	return out
end

-- A function whose name says it moves or makes values on a device is not host code.
local DEVICE_WORDS = { "device", "cuda", "npu", "gpu" }

-- s without its leading and trailing blanks, in one pass however long it is.
local function trim(s)
	local first = s:find("[^%s]")
	if not first then return "" end
	local last = #s
	while s:sub(last, last):find("^%s") do last = last - 1 end
	return s:sub(first, last)
end

-- An argument's value without its keyword ("  k = a[1] " -> "a[1]").
local function argument_value(a)
	local v = trim(a)
	local after = v:match("^[%a_][%w_]*%s*=()[^=]")
	return after and trim(v:sub(after)) or v
end

-- Why an expression's value is on the host, given the names known to be host values and
-- what the file's own functions return (known: {returns = name -> reason, project = f(callee)
-- -> true when the callee is the project's}); nil when it may be on the device.
local origin
local function project_result(text, map, names, known)
	local f = head_call(text)
	-- the call itself, or an element of its result (f(x)[i])
	local s = spine(text)
	if not f or s:sub(1, #f + 2) ~= f .. "()" or s:sub(#f + 3):gsub("%b[]", "") ~= "" or not known.project(f) then
		return nil
	end
	local name = f:match("([%a_][%w_]*)$")
	local lower = name:lower()
	for _i, w in ipairs(DEVICE_WORDS) do
		if lower:find(w, 1, true) then return nil end
	end
	if name:match("^to_") then return nil end
	local why
	for _i, a in ipairs(call_arguments(text) or {}) do
		local w = origin(argument_value(a), map, names, known)
		if not w then return nil end
		why = why or w
	end
	return why and _("computed by the project's `{f}` from {why}", { f = name, why = why }) or nil
end

-- Whether the rest of a spine after a constructor ("().view().numpy()") is its call and
-- then only method calls, attributes and indexing: what they give stays on the tensor's
-- device (a move, `.cuda()` or `.to()`, is told apart before this is asked).
local function stays(rest)
	local tail = rest:match("^%(%)(.*)$")
	if not tail then return false end
	tail = tail:gsub("%b[]", ""):gsub("%.[%a_][%w_]*%(%)", ""):gsub("%.[%a_][%w_]*", "")
	return tail == ""
end

function origin(text, map, names, known)
	local s = spine(text)
	-- the last move in the chain decides: x.cpu().numpy() is on the host, x.cpu().cuda() not
	local moved
	for m in s:gmatch("%.([%a_][%w_]*)%(%)") do
		if HOST_CALLS[m] then
			moved = m == "to_host__" and _("a value already moved to the host by `.to(\"cpu\")`")
				or _("a value already moved to the host by `.{call}()`", { call = m })
		elseif DEVICE_CALLS[m] then
			moved = false
		end
	end
	if moved ~= nil then return moved or nil end
	local root = s:match("^([%a_][%w_]*)")
	if root and (map[root] or root) == "numpy" then return _("a numpy value") end
	local f = head_call(text)
	if f then
		local full = py.expand(map, f)
		if full:match("^numpy%.") or full == "numpy" then return _("a numpy value") end
		for _i, lib in ipairs(NUMPY_LIBRARIES) do
			if full:sub(1, #lib) == lib then return _("a numpy value") end
		end
		if CPU_BUILDERS[full] and stays(s:sub(#f + 1)) and (not text:match("[%(,]%s*device%s*=")
			or text:match("[%(,]%s*device%s*=%s*[\"']cpu[\"']%s*[,%)]")) then
			return _("a tensor built on the CPU")
		end
		-- any call told device='cpu' (a project helper `_init_scalar(v, device='cpu', ...)`)
		if stays(s:sub(#f + 1)) and text:match("[%(,]%s*device%s*=%s*[\"']cpu[\"']%s*[,%)]") then
			return _("a value made with device='cpu'")
		end
	end
	local attr = s:match("^(self%.[%a_][%w_]*)")
	if attr and names[attr] then return names[attr] end
	if root and names[root] then return names[root] end
	if f and s == f .. "()" and known.returns[f:match("([%a_][%w_]*)$")] then
		return known.returns[f:match("([%a_][%w_]*)$")]
	end
	return project_result(text, map, names, known)
end

-- Names that only torch code holds: a module naming one may be handed device tensors.
local TORCH_WORDS = { torch = true, cuda = true, cpu = true, npu = true, detach = true,
	unsqueeze = true, contiguous = true, backward = true, Tensor = true }

-- The names a file binds to numpy or a library returning numpy arrays, and whether numpy
-- itself is among them.
local function numpy_names(map)
	local out, numpy = {}, false
	for alias, full in pairs(map) do
		if full == "numpy" or full:sub(1, 6) == "numpy." then
			numpy = true
			out[#out + 1] = alias
		else
			for _i, lib in ipairs(NUMPY_LIBRARIES) do
				if (full .. "."):sub(1, #lib) == lib then out[#out + 1] = alias end
			end
		end
	end
	return out, numpy
end

-- Whether the file at path is a module of numpy code (see the head of this file).
local function numpy_module(ctx, path, map)
	if not select(2, numpy_names(map)) then return false end
	return ctx.shared("host.numpy_module", path, function()
		if #(ctx.find_names(path, TORCH_WORDS) or { true }) > 0 then return false end
		for _i, f in ipairs(project.imported_modules(ctx, path)) do
			if #(ctx.find_names(f, { torch = true }) or { true }) > 0 then return false end
		end
		return true
	end)
end

local DATASET_BASES = { "Dataset", "IterableDataset", "Sampler" }

local function dataset_class(bases, body_text)
	for _i, b in ipairs(DATASET_BASES) do
		if bases:match("[%w_%.]*" .. b .. "[%s,%)%]]") then return true end
	end
	return body_text:match("def%s+__getitem__%s*%(") ~= nil
end

-- Whether an isinstance() type argument names only numpy types (np.ndarray, (np.ndarray,
-- np.generic)).
local function numpy_types(text, map)
	local any = false
	for name in text:gmatch("[%a_][%w_%.]*") do
		if not py.expand(map, name):match("^numpy%.") then return false end
		any = true
	end
	return any
end

-- The innermost function (its definition's bytes) holding byte b, or the whole file.
local FILE_SCOPE = { 0, math.huge }
local function scope_of(scopes, b)
	local best = FILE_SCOPE
	for _i, r in ipairs(scopes) do
		if b >= r[1] and b < r[2] and r[1] >= best[1] then best = r end
	end
	return best
end

-- Whether name is a parameter or loop variable of the scope holding byte b.
local function bound_at(bound, scopes, name, b)
	local sc = scope_of(scopes, b)
	for _i, r in ipairs(bound[name] or {}) do
		if r == sc then return true end
	end
	return false
end

-- What a function's body says it returns: a reason when every return gives a host value
-- (or the name it converted in place with `.to_numpy()`), and whether every return gives
-- one of its own parameters back.
local function returns_of(body, params, map)
	local exprs, converted = {}, {}
	for line in body:gmatch("[^\n]+") do
		local t = trim(line)
		local expr = t:match("^return%s(.*)$")
		if expr then exprs[#exprs + 1] = trim(expr) end
		local inplace = t:match("^([%a_][%w_]*)%.to_numpy%(%)$")
		if inplace then converted[inplace] = true end
	end
	if #exprs == 0 then return false, false end
	local host, through = true, true
	local none = { returns = {}, project = function() return false end }
	for _i, expr in ipairs(exprs) do
		local name = expr:match("^[%a_][%w_]*$")
		through = through and name ~= nil and params[name] == true
		host = host and ((name and converted[name]) or origin(expr, map, {}, none)) and true
	end
	return host, through
end

-- The names a binding target binds ("a, (b, c)" -> a, b, c): not the tensor stored into
-- by `x[i] = ...` nor the object whose attribute `x.y = ...` sets.
local function bound_names(target)
	local out = {}
	for at, name in target:gmatch("()([%a_][%w_]*)") do
		local before, after = target:sub(1, at - 1), target:sub(at + #name)
		if not before:match("%.%s*$") and not after:match("^%s*[%.%[]") and not name:match("^%d") then
			out[#out + 1] = name
		end
	end
	return out
end

-- What the file says about the order of its code, for the value a name holds at one
-- place: the assignment statements of a name (defs: name -> {at, stmt_end, block, rhs}),
-- every byte where a name is bound again (writes: name -> bytes), the loops ({s, e}) and
-- the comprehensions with the names their `for` binds ({s, e, names}).
local function new_flow()
	return { defs = {}, writes = {}, loops = {}, comps = {} }
end

-- Adds one match of QUERY to the flow facts; returns whether it was one of theirs.
local function add_flow(flow, m)
	local function write(text, b)
		for _i, name in ipairs(bound_names(text)) do
			flow.writes[name] = flow.writes[name] or {}
			table.insert(flow.writes[name], b)
		end
	end
	if m.dlhs then
		local d = flow.defs[m.dlhs.text] or {}
		d[#d + 1] = { at = m.dlhs.start_byte, stmt_end = m.dstmt.end_byte, rhs = m.drhs.text,
			block = { m.dblock.start_byte, m.dblock.end_byte } }
		flow.defs[m.dlhs.text] = d
	elseif m.write then
		write(m.write.text, m.write.start_byte)
	elseif m.loopst then
		flow.loops[#flow.loops + 1] = { m.loopst.start_byte, m.loopst.end_byte }
	elseif m.cvar then
		local names = {}
		for _i, name in ipairs(bound_names(m.cvar.text)) do names[name] = true end
		flow.comps[#flow.comps + 1] = { m.comp.start_byte, m.comp.end_byte, names = names }
	else
		if m.bound then write(m.bound.text, m.bound.start_byte) end
		return false
	end
	return true
end

-- The assignment statement `name = ...` whose value name holds at byte b, or nil: the last
-- one before b in a block holding b, in b's function, when nothing binds name again between
-- it and b, nor in a loop that holds b but not the assignment (a rebinding later in such a
-- loop reaches b on the next iteration).
local function reaching(flow, scopes, name, b)
	local sc = scope_of(scopes, b)
	local chosen
	for _i, d in ipairs(flow.defs[name] or {}) do
		if d.stmt_end <= b and d.block[1] <= b and b < d.block[2] and scope_of(scopes, d.at) == sc
			and (not chosen or d.at > chosen.at) then
			chosen = d
		end
	end
	if not chosen then return nil end
	for _i, w in ipairs(flow.writes[name] or {}) do
		if w > chosen.at and w >= sc[1] and w < sc[2] then
			if w < b then return nil end
			for _j, l in ipairs(flow.loops) do
				if l[1] > chosen.at and l[1] <= b and b < l[2] and l[1] <= w and w < l[2] then return nil end
			end
		end
	end
	return chosen
end

-- Whether name is a variable of a comprehension holding byte b.
local function comprehension_variable(flow, name, b)
	for _i, c in ipairs(flow.comps) do
		if c.names[name] and b >= c[1] and b < c[2] then return true end
	end
	return false
end

-- What the file says about its values: the dataset ranges, the names known to hold host
-- values (name or self.attr -> reason), the isinstance guards ({s, e, name}), where
-- names are bound (bound: name -> the scopes where it is a parameter or loop variable)
-- and the flow facts (new_flow).
local function facts(ctx, path, map)
	local assigns, ranges, bound, guards, scopes, funcs = {}, {}, {}, {}, {}, {}
	local flow = new_flow()
	local ms = ctx.query(path, QUERY) or {}
	for _i, m in ipairs(ms) do
		if m.fdef then scopes[#scopes + 1] = { m.fdef.start_byte, m.fdef.end_byte } end
	end
	local function bind(text, b)
		local sc = scope_of(scopes, b)
		for name in text:gmatch("[%a_][%w_]*") do
			bound[name] = bound[name] or {}
			table.insert(bound[name], sc)
		end
	end
	for _i, m in ipairs(ms) do
		if add_flow(flow, m) then
			-- kept in flow
		elseif m.isf then
			if numpy_types(m.itype.text, map) then
				guards[#guards + 1] = { m.ibody.start_byte, m.ibody.end_byte, m.iname.text }
			end
		elseif m.bound then
			bind(m.bound.text, m.bound.start_byte) -- loop variables hold whatever they are given
		elseif m.lhs then
			local a = assigns[m.lhs.text] or {}
			a[#a + 1] = { text = m.rhs.text, at = m.lhs.start_byte }
			assigns[m.lhs.text] = a
		elseif m.cname then
			if dataset_class(m.bases.text, m.cbody.text) then
				ranges[#ranges + 1] = { m.cbody.start_byte, m.cbody.end_byte, _("dataset code, run by DataLoader workers on the CPU") }
			end
		elseif m.fname then
			local n = m.fname.text
			bind(m.fparams.text, m.fbody.start_byte) -- and so do parameters
			local params = {}
			for p in m.fparams.text:gmatch("[%a_][%w_]*") do params[p] = true end
			funcs[#funcs + 1] = { name = n, body = m.fbody.text, params = params }
			if n == "__getitem__" or n:lower():match("collate") then
				ranges[#ranges + 1] = { m.fbody.start_byte, m.fbody.end_byte, _("dataset code, run by DataLoader workers on the CPU") }
			end
		end
	end
	local own = project.own_modules(ctx)
	local defined, known, through = {}, { returns = {} }, {}
	for _i, f in ipairs(funcs) do defined[f.name] = true end
	function known.project(callee)
		local full = py.expand(map, callee)
		if full:sub(1, 1) == "." then return true end
		if not full:find(".", 1, true) then return defined[full] == true end
		return own:has(full:match("^[^.]+"), path) and not full:match("^self%.")
	end
	for _i, f in ipairs(funcs) do
		local host_ret, pass = returns_of(f.body, f.params, map)
		if host_ret then known.returns[f.name] = _("a value `{f}` returns on the host", { f = f.name }) end
		if pass then through[f.name] = true end
	end
	-- `x = f(x, ...)` of a function that only gives its parameters back keeps x where it was
	local function keeps(name, r)
		local f = head_call(r)
		return f and through[f:match("([%a_][%w_]*)$")] and r:find("[%(,]%s*" .. name .. "%s*[,%)]") ~= nil
	end
	-- a name is a host value when every assignment to it is; two passes let one host
	-- name feed another (arr = np.zeros(...); idx = arr > 0)
	local names = {}
	for _i = 1, 2 do
		for name, rhss in pairs(assigns) do
			local why
			for _i, r in ipairs(rhss) do
				if not keeps(name, r.text) then
					-- `v = v.item()` says nothing about where v was before
					why = not bound_at(bound, scopes, name, r.at) and r.text:match("^[%a_][%w_]*") ~= name
						and origin(r.text, map, names, known) or nil
					if not why then break end
				end
			end
			names[name] = why
		end
	end
	return ranges, names, guards, bound, scopes, known, flow
end

-- The host facts of one file: h:why(node) gives the reason a node is host-side, or nil.
-- They are read from the file when first asked for: most files offered to a check have no
-- site to ask about, and reading every assignment of a file is the costly part.
function host.file(ctx, path, map)
	map = map or py.aliases(ctx, path) or {}
	local ranges, names, guards, bound, scopes, known, flow, numpy_code
	local h = {}
	-- Why the value of an expression read at byte b is on the host, or nil: what the
	-- expression says, else what its root name holds there, from the assignment that
	-- reaches b (`m_id = torch.from_numpy(a)` before `m_id.eq(i).sum().item()`, however
	-- m_id was assigned before). A parameter or loop variable is whatever it is given, and
	-- a comprehension's variable whatever it iterates, whatever the name holds elsewhere.
	local function value_at(text, b, depth)
		local root = text:match("^[%a_][%w_]*")
		local inner = root and comprehension_variable(flow, root, b)
		local here = names
		if root and (inner or names[root] and bound_at(bound, scopes, root, b)) then
			here = setmetatable({ [root] = false }, { __index = names })
		end
		local why = origin(text, map, here, known)
		if why or not root or inner or depth > 2 then return why end
		local d = reaching(flow, scopes, root, b)
		local held = d and value_at(d.rhs, d.at, depth + 1)
		if not held then return nil end
		return origin(text, map, setmetatable({ [root] = held }, { __index = here }), known)
	end
	-- node: the value (the object of a method call, the indexed value) or the site
	function h:why(node, site)
		if not ranges then ranges, names, guards, bound, scopes, known, flow = facts(ctx, path, map) end
		site = site or node
		for _i, r in ipairs(ranges) do
			if site.start_byte >= r[1] and site.end_byte <= r[2] then return r[3] end
		end
		local root = node.text:match("^[%a_][%w_]*")
		for _i, g in ipairs(guards) do
			if root == g[3] and site.start_byte >= g[1] and site.end_byte <= g[2] then return _("a numpy value") end
		end
		local why = value_at(node.text, site.start_byte, 0)
		if why then return why end
		if numpy_code == nil then numpy_code = numpy_module(ctx, path, map) end
		if not numpy_code then return nil end
		-- the function holding the site must call numpy itself (or be the module's top level)
		local sc = scope_of(scopes, site.start_byte)
		if sc ~= FILE_SCOPE then
			local body, calls = ctx.node_text(path, sc[1], sc[2]), false
			for _i, alias in ipairs(numpy_names(map)) do
				calls = calls or body:find("%f[%w_]" .. alias:gsub("%.", "%%.") .. "%.") ~= nil
			end
			if not calls then return nil end
		end
		return _("numpy code: its function works with numpy and its module never uses torch")
	end
	return h
end

-- Whether the code runs node on the CPU only, and why (a translated reason), else nil: it
-- sits in the branch of a device test for the CPU (`if device.type == "cpu":`), or in a
-- branch taken when a flag is set (`if optimize:`, `if opt.optimize:`) that the file allows
-- on the CPU only: under an `if` of the same flag it asserts the device is the CPU (yolov5's
-- export.py: `if optimize: assert device.type == "cpu", ...` before it exports for mobile).
local BRANCHES = [[
(if_statement condition: (_) @c consequence: (block) @b)
(elif_clause condition: (_) @c consequence: (block) @b)
]]
local ASSERTS = "(assert_statement . (_) @a) @s"
-- a test that the device is the CPU: `== "cpu"` and nothing that could let another device by
local function cpu_test(text)
	return (text:find("==%s*[\"']cpu[\"']") or text:find("[\"']cpu[\"']%s*==")) ~= nil
		and not text:find("%f[%w_]or%f[^%w_]") and not text:find("%f[%w_]not%f[^%w_]")
end
-- the flag a condition tests when set: `optimize`, `opt.optimize`, `optimize and x` -> "optimize"
local function flag_of(text)
	local head = text:match("^([%a_][%w_%.]*)%s*$") or text:match("^([%a_][%w_%.]*)%s+and%f[^%w_]")
	return head and head:match("([%a_][%w_]*)$") or nil
end
function host.cpu_only(ctx, path, node)
	local branches = ctx.query(path, BRANCHES) or {}
	for _i, m in ipairs(branches) do
		if m.b.start_byte <= node.start_byte and node.end_byte <= m.b.end_byte then
			local cond = m.c.text:gsub("%s+", " ")
			if cpu_test(cond) then
				return _("in a branch for the CPU (`{cond}`, line {line})", { cond = cond, line = m.c.line })
			end
			local flag = flag_of(cond)
			for _j, g in ipairs(flag and branches or {}) do
				if flag_of(g.c.text) == flag and g.b ~= m.b then
					for _k, a in ipairs(ctx.query(path, ASSERTS) or {}) do
						if a.s.start_byte >= g.b.start_byte and a.s.end_byte <= g.b.end_byte and cpu_test(a.a.text) then
							return _("the code allows `{flag}` on the CPU only: line {line} asserts `{test}` when it is set",
								{ flag = flag, line = a.s.line, test = a.a.text:gsub("%s+", " ") })
						end
					end
				end
			end
		end
	end
	return nil
end

-- The finding that says a site is on the host and why (h:why's reason): an info of
-- category host_side, which weighs nothing in the estimate. code is the construct as
-- quoted; in_loop says it sits in a loop body.
function host.not_affected(path, node, code, why, in_loop)
	local a = { code = code, why = why }
	return {
		file = path, node = node, severity = "info", category = "host_side",
		message = in_loop and _("`{code}` inside a loop is host-side ({why}): not affected on the NPU.", a)
			or _("`{code}` is host-side ({why}): not affected on the NPU.", a),
		suggestion = _("Nothing to change for the NPU: the value never leaves the host."),
	}
end

return host
