#!/bin/sh
# Finding categories are data (plugins/data/categories.json): every bundled check's
# category is listed there, an engagement plugin with an unknown category loads with a
# warning, a weight for an unknown category is refused, and the table drives the effort.
. "$(dirname "$0")/lib.sh"

p="$work/p"
make_project "$p"
"$FERRY" init "$p" >/dev/null
expect_exit 0 "plugins" -- "$FERRY" -C "$p" plugins
[ ! -s "$work/err" ] && ok "every bundled check's category is in categories.json (no warning)" ||
	fail "bundled categories: $(head -3 "$work/err")"

mkdir -p "$p/.ferry/plugins/assess"
cat >"$p/.ferry/plugins/assess/odd_category.lua" <<'LUA'
return {
	id = "assess.odd_category", phase = "assess", title = "a check with a category of its own",
	severity = "warning", category = "quantum",
	run = function(ctx) ctx.report{ file = "train.py", line = 1, message = "a finding" } end,
}
LUA
expect_exit 0 "a plugin with an unknown category still loads" -- "$FERRY" -C "$p" plugins
expect_grep "^assess.odd_category " "$work/out" "it is listed"
expect_grep "warning: plugin assess.odd_category .*category 'quantum' is not one of plugins/data/categories.json" "$work/err" \
	"the warning names the plugin and the category"
"$FERRY" -C "$p" plugins --format json >"$work/pl.json"
python3 -c 'import json,sys; p=[x for x in json.load(open(sys.argv[1]))["plugins"] if x["id"]=="assess.odd_category"][0]; assert "quantum" in p["warning"]' "$work/pl.json" &&
	ok "plugins --format json carries the warning" || fail "no warning in JSON"
"$FERRY" -C "$p" check --phase assess >/dev/null 2>"$work/err"
rc=$?
[ $rc -ne 3 ] && ok "the check runs (not a plugin error: exit $rc)" || fail "check exit 3"
expect_grep "warning: plugin assess.odd_category" "$work/err" "check repeats the warning on stderr"

expect_exit 2 "a weight for an unknown category is refused" -- "$FERRY" -C "$p" config effort.weight.quantum 3
expect_grep "'quantum' is not a finding category" "$work/err" "the refusal names the category"
one_line "$work/err" "one line"
expect_exit 0 "a weight for a listed category is taken" -- "$FERRY" -C "$p" config effort.weight.custom_kernel 4

# the effort comes from the table: one custom kernel finding weighs its categories.json days
q="$work/q"
mkdir -p "$q/csrc"
printf 'import torch\nfrom torch.utils.cpp_extension import load\nk = load(name="k", sources=["csrc/k.cu"])\nx = torch.ones(1).cuda()\n' >"$q/train.py"
printf '__global__ void k() {}\n' >"$q/csrc/k.cu"
"$FERRY" init "$q" >/dev/null
"$FERRY" -C "$q" check --phase assess >/dev/null 2>&1
"$FERRY" -C "$q" status --format json >"$work/s1.json"
"$FERRY" -C "$q" config effort.weight.custom_kernel 10 >/dev/null
"$FERRY" -C "$q" status --format json >"$work/s2.json"
python3 - "$work/s1.json" "$work/s2.json" "$top/plugins/data/categories.json" <<'PY' && ok "custom_kernel findings weigh the table's days, and the setting overrides them" || fail "effort weights"
import json, sys
a, b = (json.load(open(f))["assessment"] for f in sys.argv[1:3])
w = {c["name"]: c["weight_days"] for c in json.load(open(sys.argv[3]))["categories"]}["custom_kernel"]
n = (b["effort_days"] - a["effort_days"]) / (10 - w)
assert n >= 1 and abs(n - round(n)) < 1e-9, (a["effort_days"], b["effort_days"], w)
PY

finish
