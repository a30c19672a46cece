#!/bin/sh
# Settings as data: a plugin declares its own settings (type, allowed values, default,
# help); `ferry config` lists them beside ferry's with who declared them, checks values
# against the declaration, records a change in the audit chain, and the plugin reads the
# value, typed, with ctx.config(name). A bad declaration is one clear load problem.
. "$(dirname "$0")/lib.sh"

p="$work/p"
make_project "$p"
"$FERRY" init "$p" >/dev/null
dir="$p/.ferry/plugins/assess"
mkdir -p "$dir"
cat >"$dir/house.lua" <<'LUA'
return {
	id = "assess.house", phase = "assess", title = "House rules", severity = "info",
	settings = {
		max_lines = { type = "count", default = 400, help = "longest script the team accepts" },
		strict = { type = "bool", default = false, help = "report warnings instead of notes" },
		style = { type = "word", values = { "plain", "fancy" }, default = "plain", help = "report style" },
		owner = { type = "text", help = "who answers for the rules" },
	},
	run = function(ctx)
		local m, s, st, o = ctx.config("max_lines"), ctx.config("strict"), ctx.config("style"), ctx.config("owner")
		ctx.report{ file = "train.py", line = 1,
			message = string.format("max_lines=%s (%s) strict=%s (%s) style=%s owner=%s", tostring(m), math.type(m) or type(m),
				tostring(s), type(s), tostring(st), tostring(o)) }
	end,
}
LUA
run_house() {
	"$FERRY" -C "$p" check --plugin assess.house >/dev/null 2>&1
	"$FERRY" -C "$p" findings --plugin assess.house --format json >"$work/f.json" 2>&1
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["findings"][0]["message"])' "$work/f.json"
}
got=$(run_house)
[ "$got" = "max_lines=400 (integer) strict=false (boolean) style=plain owner=nil" ] &&
	ok "unset: the plugin reads its declared defaults, typed" || fail "defaults: $got"

"$FERRY" -C "$p" config >"$work/list" 2>&1
expect_grep "^assess.house.max_lines .* # longest script the team accepts (default 400)$" "$work/list" "config lists a plugin's setting with its help and default"
"$FERRY" -C "$p" config --format json >"$work/list.json" 2>&1
python3 - "$work/list.json" <<'PY' && ok "config --format json: key, value, default, type, allowed, help, declared_by" || fail "config json: $(head -c 400 "$work/list.json")"
import json, sys
rows = {r["key"]: r for r in json.load(open(sys.argv[1]))}
s = rows["assess.house.style"]
assert s == {"key": "assess.house.style", "value": None, "default": "plain", "type": "word", "allowed": ["plain", "fancy"],
             "help": "report style", "declared_by": "assess.house"}, s
assert rows["assess.house.strict"]["type"] == "bool" and rows["assess.house.strict"]["allowed"] == ["true", "false"]
assert rows["tolerance.loss"]["declared_by"] is None
PY

expect_exit 2 "a value the declaration does not allow is refused" -- "$FERRY" -C "$p" config assess.house.style loud
one_line "$work/err" "with one line"
expect_grep "assess.house.style loud: must be one of: plain fancy" "$work/err" "naming the allowed values"
expect_exit 2 "a count must be a whole number" -- "$FERRY" -C "$p" config assess.house.max_lines 2.5
expect_exit 2 "an undeclared key of the plugin is unknown" -- "$FERRY" -C "$p" config assess.house.nosuch 1
expect_grep "assess.house.max_lines" "$work/err" "the refusal lists the declared keys"

"$FERRY" -C "$p" config assess.house.max_lines 120 >/dev/null 2>&1
"$FERRY" -C "$p" config assess.house.strict true >/dev/null 2>&1
"$FERRY" -C "$p" config assess.house.owner "QA team" >/dev/null 2>&1
got=$(run_house)
[ "$got" = "max_lines=120 (integer) strict=true (boolean) style=plain owner=QA team" ] &&
	ok "set: the plugin reads the engagement's values, typed" || fail "values: $got"
"$FERRY" -C "$p" config assess.house.max_lines >"$work/one" 2>&1
expect_grep "^120$" "$work/one" "config KEY prints a plugin setting's value"
"$FERRY" -C "$p" config assess.house.style >"$work/one" 2>&1
expect_grep "^plain$" "$work/one" "config KEY of an unset setting prints its default"
"$FERRY" -C "$p" log --events --format json >"$work/events.json" 2>&1
python3 - "$work/events.json" <<'PY' && ok "each change is a config event in the audit chain" || fail "events: $(head -c 300 "$work/events.json")"
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["events"] if e["kind"] == "config"]
keys = [e["data"]["key"] for e in ev]
assert keys.count("assess.house.max_lines") == 1 and "assess.house.strict" in keys, keys
PY
"$FERRY" -C "$p" verify >/dev/null 2>&1 && ok "the chain verifies" || fail "verify failed"

# a bundled check's settings: their help in the reader's language, from the plugins' catalog
FERRY_LANG=zh "$FERRY" -C "$p" config >"$work/zh" 2>&1
expect_grep "^design.migration_plan.dataset .*# 迁移方案中的训练数据集" "$work/zh" "a bundled check's setting is explained in Chinese"
FERRY_LANG=zh "$FERRY" -C "$p" config --format json >"$work/zh.json" 2>&1
python3 - "$work/zh.json" <<'PY' && ok "and so in the JSON listing" || fail "zh json: $(head -c 300 "$work/zh.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
rows = doc if isinstance(doc, list) else doc.get("settings", doc)
got = [r for r in rows if r["key"] == "design.migration_plan.inference"]
assert got and "是否规划推理迁移" in got[0]["help"] and got[0]["declared_by"] == "design.migration_plan", got
PY

# bad declarations: one clear load problem each, the other plugins still run
bad() { # NAME DECL -> the plugins' listing
	cat >"$dir/bad.lua" <<LUA
return { id = "assess.bad", phase = "assess", title = "Bad", severity = "info", settings = $2,
	run = function(ctx) end }
LUA
	"$FERRY" -C "$p" plugins >"$work/plugins.out" 2>"$work/plugins.err"
	if grep -q "$3" "$work/plugins.err"; then ok "$1"; else fail "$1: $(cat "$work/plugins.err" | head -3)"; fi
}
bad "an unknown type is refused" '{ n = { type = "float", help = "x" } }' "settings.n.type: must be bool, number, count, text or word"
bad "a default of the wrong type is refused" '{ n = { type = "count", default = "many", help = "x" } }' "settings.n.default: not a count"
bad "a default outside the values is refused" '{ n = { type = "word", values = {"a"}, default = "b", help = "x" } }' "settings.n.default"
bad "a setting without help is refused" '{ n = { type = "bool" } }' "settings.n.help: missing"
bad "a bad name is refused" '{ ["Bad-Name"] = { type = "bool", help = "x" } }' "is not a setting name"
rm -f "$dir/bad.lua"
finish
