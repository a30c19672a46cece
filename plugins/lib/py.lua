-- py: helpers over ctx.query for the common shapes of Python code.
--
--   local py = require("py")
--
-- Every helper that takes (ctx, path) runs a query on that file and returns a list
-- (in source order), or nil and a reason when the file cannot be parsed. Nodes are the
-- tables ctx.query returns: {text, type, start_byte, end_byte, line, col, end_line, end_col}.
-- Comments and string contents never match: the helpers work on the syntax tree.

local py = {}

local function is_ident(s)
  return type(s) == "string" and s:match("^[%a_][%w_]*$") ~= nil
end

local function by_start(a, b)
  local x, y = a.node or a.call or a.arg, b.node or b.call or b.arg
  return x.start_byte < y.start_byte
end

-- "torch . cuda\n  .synchronize" -> "torch.cuda.synchronize"; nil when text is not a
-- plain dotted name (a call, a subscript or a literal somewhere in the chain).
function py.dotted(text)
  -- the usual case first: nothing but names and dots (torch.cuda.synchronize, self.x)
  if not text:find("[^%w_.]") then
    local ok = text:find("^[%a_]") and not text:find("%.[%d.]") and text:byte(-1) ~= 46
    return ok and text or nil
  end
  local s = text:gsub("#[^\n]*", ""):gsub("\\\r?\n", ""):gsub("%s+", "")
  if s == "" then return nil end
  for part in (s .. "."):gmatch("([^.]*)%.") do
    if not is_ident(part) then return nil end
  end
  return s
end

-- The content of a string literal without prefix and quotes, and the prefix in lower
-- case: py.string_value("r'nccl'") -> "nccl", "r". nil when text is not one literal.
-- Escapes are left as written.
function py.string_value(text)
  local prefix, rest = text:match("^([rRbBuUfF]*)(.*)$")
  for _i, q in ipairs({ '"""', "'''", '"', "'" }) do
    local n = #q
    if #rest >= 2 * n and rest:sub(1, n) == q and rest:sub(-n) == q then
      return rest:sub(n + 1, -n - 1), prefix:lower()
    end
  end
  return nil
end

-- An edit replacing a node's text, for report{edits = ...} and fix functions.
function py.replace(node, text)
  return { start_byte = node.start_byte, end_byte = node.end_byte, text = text }
end

-- Outermost dotted attribute chains: {node=, text="torch.cuda.synchronize"}, in source
-- order (for each start byte the outermost attribute that is a dotted name: `a.b(c).d`
-- gives `a.b`; worked out once per file by the host, ctx.attributes).
-- With prefix, only chains equal to it or starting with prefix .. ".".
function py.attributes(ctx, path, prefix)
  local all, why = ctx.attributes(path)
  if not all then return nil, why end
  if not prefix then return all end
  local out, dot = {}, prefix .. "."
  for _i, a in ipairs(all) do
    if a.text == prefix or a.text:sub(1, #dot) == dot then out[#out + 1] = a end
  end
  return out
end

-- Calls of a method by name, x.NAME(...): {call=, object=, method=, args=}. name may also
-- be a set of names ({half = true, float = true}): one walk of the tree finds the calls of
-- all of them (method.text says which), where a call per name walked it once per name.
function py.method_calls(ctx, path, name)
  local pred
  if type(name) == "table" then
    for n in pairs(name) do assert(is_ident(n), "py.method_calls: names must be identifiers") end
    if next(name) == nil then return {} end
    pred = py.any_of("method", name)
  else
    assert(is_ident(name), "py.method_calls: name must be an identifier")
    pred = '(#eq? @method "' .. name .. '")'
  end
  local q = '((call function: (attribute object: (_) @object attribute: (identifier) @method)'
    .. ' arguments: (argument_list) @args) @call ' .. pred .. ')'
  local ms, why = ctx.query(path, q)
  if not ms then return nil, why end
  table.sort(ms, by_start)
  return ms
end

-- The predicate `(#any-of? @capture "a" "b" ...)` for the keys of a set, in sorted order
-- (the same set gives the same query text, compiled once).
function py.any_of(capture, set)
  local words = {}
  for w in pairs(set) do words[#words + 1] = '"' .. w .. '"' end
  table.sort(words)
  return "(#any-of? @" .. capture .. " " .. table.concat(words, " ") .. ")"
end

-- Calls whose callee is the dotted name (after alias expansion when aliases, from
-- py.aliases, is given): {call=, func=, args=, name=}. py.calls(ctx, p, "torch.cuda.set_device")
-- dotted may also be a set of names ({["torch.nn.Linear"] = true, ...}); nil gives every call.
-- With names, only the calls that can resolve to one of them reach Lua: the query's
-- predicates keep a callee whose last part is a wanted name's last part, or a bare name an
-- import binds to a wanted name (`from torch.nn import Linear as L`), and run in C.
local ALL_CALLS = "(call function: (_) @func arguments: (_) @args) @call"

local function calls_query(names, aliases)
  local lasts, bare = {}, {}
  for n in pairs(names) do
    local last = n:match("([%a_][%w_]*)$")
    if not last then return ALL_CALLS end -- not a dotted name: nothing to narrow by
    lasts[last], bare[last] = true, true
  end
  for bound, full in pairs(aliases or {}) do
    if names[full] and is_ident(bound) then bare[bound] = true end
  end
  if next(lasts) == nil then return nil end
  return "((call function: (attribute attribute: (identifier) @_last) @func arguments: (_) @args) @call "
    .. py.any_of("_last", lasts) .. ")\n((call function: (identifier) @func arguments: (_) @args) @call "
    .. py.any_of("func", bare) .. ")"
end

function py.calls(ctx, path, dotted, aliases)
  local names = type(dotted) == "string" and { [dotted] = true } or dotted
  local q = names and calls_query(names, aliases) or ALL_CALLS
  if not q then return {} end
  local ms, why = ctx.query(path, q)
  if not ms then return nil, why end
  local out = {}
  for _i, m in ipairs(ms) do
    local d = py.dotted(m.func.text)
    if d and aliases then d = py.expand(aliases, d) end
    if d and (not names or names[d]) then
      m.name = d
      m._last = nil
      out[#out + 1] = m
    end
  end
  table.sort(out, by_start)
  return out
end

-- Keyword arguments NAME=value: {arg=, name=, value=, string=} where string is the
-- literal's content when the value is a plain string. With value, only arguments whose
-- string content equals it: py.keyword_args(ctx, p, "backend", "nccl").
function py.keyword_args(ctx, path, name, value)
  assert(is_ident(name), "py.keyword_args: name must be an identifier")
  local q = '((keyword_argument name: (identifier) @name value: (_) @value) @arg'
    .. ' (#eq? @name "' .. name .. '"))'
  local ms, why = ctx.query(path, q)
  if not ms then return nil, why end
  local out = {}
  for _i, m in ipairs(ms) do
    if m.value.type == "string" then m.string = py.string_value(m.value.text) end
    if value == nil or m.string == value then out[#out + 1] = m end
  end
  table.sort(out, by_start)
  return out
end

local IMPORTS = [[
(import_statement name: (dotted_name) @module) @stmt
(import_statement name: (aliased_import name: (dotted_name) @module alias: (identifier) @alias)) @stmt
(import_from_statement module_name: (_) @module name: (dotted_name) @name) @stmt
(import_from_statement module_name: (_) @module
  name: (aliased_import name: (dotted_name) @name alias: (identifier) @alias)) @stmt
(import_from_statement module_name: (_) @module (wildcard_import) @wildcard) @stmt
]]

-- Every imported name: {node=, module=, name=, alias=, bound=, full=}.
--   import torch.cuda          module "torch.cuda"                 bound "torch" full "torch"
--   import torch.cuda as tc    module "torch.cuda", alias "tc"     bound "tc"    full "torch.cuda"
--   from torch import cuda     module "torch", name "cuda"         bound "cuda"  full "torch.cuda"
--   from torch import cuda as c                                    bound "c"     full "torch.cuda"
--   from apex import *         module "apex", name "*"             bound nil
-- Relative modules keep their dots (module ".utils").
function py.imports(ctx, path)
  local ms, why = ctx.query(path, IMPORTS)
  if not ms then return nil, why end
  local out = {}
  for _i, m in ipairs(ms) do
    local module = py.dotted(m.module.text) or m.module.text:gsub("%s+", "")
    local r = { node = m.stmt, module = module }
    if m.wildcard then
      r.name = "*"
    elseif m.name then
      r.name = py.dotted(m.name.text)
      r.alias = m.alias and m.alias.text
      r.bound = r.alias or r.name
      r.full = module:sub(-1) == "." and module .. r.name or module .. "." .. r.name
    else
      r.alias = m.alias and m.alias.text
      r.bound = r.alias or module:match("^[^.]+")
      r.full = r.alias and module or r.bound
    end
    out[#out + 1] = r
  end
  table.sort(out, by_start)
  return out
end

-- The arguments of every argument list of the file, by the list's start byte: {n= (how
-- many are positional), kw= (the keywords given, name -> true), splat= (true when a * or
-- ** argument unpacks what the code does not show)}. A list without arguments is absent.
local ARGUMENTS = "(argument_list (_) @a) @args"
function py.argument_lists(ctx, path)
  local out = {}
  for _i, m in ipairs(ctx.query(path, ARGUMENTS) or {}) do
    local k = out[m.args.start_byte] or { n = 0, kw = {} }
    out[m.args.start_byte] = k
    if m.a.type == "keyword_argument" then
      k.kw[m.a.text:match("^[%a_][%w_]*")] = true
    elseif m.a.type == "list_splat" or m.a.type == "dictionary_splat" then
      k.splat = true
    elseif m.a.type ~= "comment" then
      k.n = k.n + 1
    end
  end
  return out
end

-- Local name -> full dotted name for every import of the file ({tc = "torch.cuda"}).
function py.aliases(ctx, path)
  local imps, why = py.imports(ctx, path)
  if not imps then return nil, why end
  local map = {}
  for _i, r in ipairs(imps) do
    if r.bound then map[r.bound] = r.full end
  end
  return map
end

-- Rewrites the first component of a dotted name through aliases:
-- py.expand({tc = "torch.cuda"}, "tc.synchronize") -> "torch.cuda.synchronize".
function py.expand(aliases, dotted)
  local head, rest = dotted:match("^([^.]+)(.*)$")
  local full = head and aliases[head]
  if not full then return dotted end
  return full .. rest
end

-- Decorators: {node=, text="torch.jit.script", name="torch.jit.script"} where text is
-- the expression after '@' and name its dotted callee ("torch.no_grad" for
-- "@torch.no_grad()"). With name, only decorators of that dotted name.
function py.decorators(ctx, path, name)
  local ms, why = ctx.query(path, "(decorator) @dec")
  if not ms then return nil, why end
  local out = {}
  for _i, m in ipairs(ms) do
    local text = m.dec.text:gsub("^@%s*", "")
    local d = py.dotted(text:match("^[^(]*"))
    if not name or d == name then
      out[#out + 1] = { node = m.dec, text = text, name = d }
    end
  end
  table.sort(out, by_start)
  return out
end

-- String literals: {node=, value=, prefix=}. With pattern, only those whose content
-- matches the Lua pattern: py.strings(ctx, p, "^cuda") finds 'cuda', "cuda:0".
function py.strings(ctx, path, pattern)
  local ms, why = ctx.query(path, "(string) @s")
  if not ms then return nil, why end
  local out = {}
  for _i, m in ipairs(ms) do
    local v, prefix = py.string_value(m.s.text)
    if v and (not pattern or v:find(pattern)) then
      out[#out + 1] = { node = m.s, value = v, prefix = prefix }
    end
  end
  table.sort(out, by_start)
  return out
end

return py
