#!/bin/sh
# `ferry config --unset KEY`: a setting returns to unset (its default, or none, applies
# again), the audit log records it with the value it had, and what the setting decided is
# judged again: dump thresholds unset mean msprobe's rule again.
. "$(dirname "$0")/lib.sh"
p="$work/proj"
make_project "$p"
"$FERRY" init "$p" >/dev/null 2>&1 || fail "init"
fx="$top/tests/fixtures/dump"

# a pass by msprobe's rule is no pass by thresholds agreed since: tune.acceptance says so and
# points to --unset for going back to msprobe's rule; unsetting both judges it again, and the
# finding is gone. The parameters of two real runs pass both.
"$FERRY" -C "$p" compare dump "$fx/gpu_params.pt" "$fx/npu_params.pt" --format json >"$work/msprobe.json"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["verdict"] == "pass" and r["threshold"] == {"rule": "msprobe"}, r["threshold"]' \
	"$work/msprobe.json" && ok "with neither set, msprobe's rule judges the comparison" || fail "not msprobe's rule: $(head -c 300 "$work/msprobe.json")"
"$FERRY" -C "$p" config tolerance.dump_atol 1e-5 >/dev/null
"$FERRY" -C "$p" config tolerance.dump_rtol 1e-3 >/dev/null
"$FERRY" -C "$p" findings --plugin tune.acceptance --status open >"$work/stale.txt" 2>&1
expect_grep "passed by msprobe's rule, but the thresholds agreed for the engagement are now atol 1e-05, rtol 0.001" "$work/stale.txt" \
	"the pass by msprobe's rule is stale once thresholds are agreed"
expect_grep "config --unset tolerance.dump_atol" "$work/stale.txt" "and the advice names --unset to go back to msprobe's rule"
"$FERRY" -C "$p" config --unset tolerance.dump_atol >/dev/null
"$FERRY" -C "$p" config --unset tolerance.dump_rtol >/dev/null
"$FERRY" -C "$p" findings --plugin tune.acceptance --status open >"$work/stale2.txt" 2>&1
if grep -q "passed by msprobe's rule" "$work/stale2.txt"; then fail "the stale pass is still open after both were unset"; else
	ok "after both are unset the pass by msprobe's rule stands again"; fi

"$FERRY" -C "$p" config tolerance.dump_atol 1e-5 >/dev/null
"$FERRY" -C "$p" config tolerance.dump_rtol 1e-3 >/dev/null
expect_exit 0 "a comparison under agreed thresholds" -- "$FERRY" -C "$p" compare dump "$fx/gpu_dump" "$fx/gpu_dump"
expect_grep "thresholds agreed for the engagement" "$work/out" "the agreed thresholds judge it"

expect_exit 0 "config --unset of a set key" -- "$FERRY" -C "$p" config --unset tolerance.dump_atol
expect_exit 3 "the key then reads as not set" -- "$FERRY" -C "$p" config tolerance.dump_atol
expect_grep "tolerance.dump_atol is not set" "$work/err" "and says so"
expect_exit 0 "--unset as JSON" -- "$FERRY" -C "$p" config --unset tolerance.dump_rtol --format json
python3 - "$work/out" <<'PY' && ok "JSON: the key, value null and the value it had" || fail "JSON of --unset"
import json, sys
e = json.load(open(sys.argv[1]))
assert e["key"] == "tolerance.dump_rtol" and e["value"] is None and e["previous"] == "1e-3", e
PY
expect_exit 0 "a comparison after both are unset" -- "$FERRY" -C "$p" compare dump "$fx/gpu_dump" "$fx/gpu_dump"
expect_grep "rules: cosine" "$work/out" "msprobe's rule judges it again"

"$FERRY" -C "$p" log --events --format json >"$work/log.json"
python3 - "$work/log.json" <<'PY' && ok "the audit log records each unset with the value it had" || fail "audit events of --unset"
import json, sys
d = json.load(open(sys.argv[1]))
evs = d["events"] if isinstance(d, dict) else d
unsets = [e["data"] for e in evs if e["kind"] == "config" and e["data"].get("value") is None]
got = sorted((u["key"], u["previous"]) for u in unsets)
assert got == [("tolerance.dump_atol", "1e-5")] * 2 + [("tolerance.dump_rtol", "1e-3")] * 2, got
PY
expect_exit 0 "verify after unsets" -- "$FERRY" -C "$p" verify

n=$(grep -c . "$work/log.json")
expect_exit 0 "--unset of a key not set changes nothing" -- "$FERRY" -C "$p" config --unset tolerance.dump_atol
expect_grep "tolerance.dump_atol was not set; nothing changed" "$work/out" "and says so"
"$FERRY" -C "$p" log --events --format json >"$work/log2.json"
[ "$(grep -c . "$work/log2.json")" = "$n" ] && ok "no audit event for a key that was not set" || fail "an unset of nothing was recorded"
expect_exit 2 "--unset of an unknown key" -- "$FERRY" -C "$p" config --unset tolerance.nope
one_line "$work/err" "the unknown key: one line"
expect_grep "unknown key tolerance.nope" "$work/err" "naming the key"
# a key of a named family whose name is not one of the family's: unknown, as when it is set
expect_exit 2 "config effort.weight.bogus 1 is refused" -- "$FERRY" -C "$p" config effort.weight.bogus 1
cp "$work/err" "$work/set_err"
expect_exit 2 "--unset effort.weight.bogus is refused as setting it is" -- "$FERRY" -C "$p" config --unset effort.weight.bogus
one_line "$work/err" "the unknown name: one line"
cmp -s "$work/err" "$work/set_err" && ok "the same error as setting it" ||
	fail "--unset of an unknown name: $(cat "$work/err") (setting it: $(cat "$work/set_err"))"
expect_exit 2 "reading effort.weight.bogus: the same error" -- "$FERRY" -C "$p" config effort.weight.bogus
cmp -s "$work/err" "$work/set_err" && ok "reading it names the categories too" || fail "reading an unknown name: $(cat "$work/err")"
expect_exit 2 "--unset quote.days.bogus is refused" -- "$FERRY" -C "$p" config --unset quote.days.bogus
expect_grep "not a service line" "$work/err" "naming what it is not"
"$FERRY" -C "$p" config effort.weight.custom_kernel 4 >/dev/null
expect_exit 0 "--unset of a named key that is set" -- "$FERRY" -C "$p" config --unset effort.weight.custom_kernel
"$FERRY" -C "$p" config effort.weight.custom_kernel --format json | grep -q '"value":[[:space:]]*null' &&
	ok "effort.weight.custom_kernel is unset" || fail "effort.weight.custom_kernel still set after --unset"
expect_exit 2 "--unset without a key" -- "$FERRY" -C "$p" config --unset
expect_exit 2 "--unset with a value too" -- "$FERRY" -C "$p" config --unset tolerance.loss 0.02

# a setting the checks read: unsetting it judges them again
"$FERRY" -C "$p" check >/dev/null 2>&1
"$FERRY" -C "$p" config target.cards 8 >/dev/null
"$FERRY" -C "$p" config --unset target.cards >/dev/null
expect_exit 3 "target.cards is unset" -- "$FERRY" -C "$p" config target.cards
"$FERRY" -C "$p" log --events --format json >"$work/log3.json"
python3 - "$work/log3.json" <<'PY' && ok "the checks that read target.cards ran again after the unset" || fail "no re-judging after the unset"
import json, sys
d = json.load(open(sys.argv[1]))
evs = sorted(d["events"] if isinstance(d, dict) else d, key=lambda e: e["seq"])
i = max(k for k, e in enumerate(evs) if e["kind"] == "config" and e["data"].get("key") == "target.cards" and e["data"].get("value") is None)
assert any(e["kind"] == "check" for e in evs[i + 1:]), [e["kind"] for e in evs[i:]]
PY
# a plugin's own setting: unset, its declared default applies again
"$FERRY" -C "$p" config design.migration_plan.inference yes >/dev/null
expect_exit 0 "--unset of a plugin's setting" -- "$FERRY" -C "$p" config --unset design.migration_plan.inference --json
python3 - "$work/out" <<'PY' && ok "JSON: the plugin's key, value null, the value it had, its default" || fail "JSON of a plugin setting's --unset"
import json, sys
e = json.load(open(sys.argv[1]))
assert (e["key"], e["value"], e["previous"], e["default"], e["declared_by"]) == \
    ("design.migration_plan.inference", None, "yes", "auto", "design.migration_plan"), e
PY
expect_exit 0 "reading it after --unset" -- "$FERRY" -C "$p" config design.migration_plan.inference
[ "$(cat "$work/out")" = auto ] && ok "shows the declared default again" || fail "after --unset it reads $(cat "$work/out")"

# the setting of a plugin taken out of the engagement: no plugin declares it any more,
# so it cannot be set, but the engagement still holds it (the report's settings carry it):
# --unset removes it; a key neither declared nor held stays unknown
pl="$p/.ferry/plugins/assess"
mkdir -p "$pl"
cat >"$pl/house.lua" <<'LUA'
return {
	id = "assess.house", phase = "assess", title = "House rules", severity = "info",
	settings = { owner = { type = "text", help = "who answers for the rules" } },
	run = function(ctx) end,
}
LUA
"$FERRY" -C "$p" config assess.house.owner "Ada" >/dev/null || fail "setting the plugin's own setting"
rm "$pl/house.lua"
expect_exit 2 "the removed plugin's setting cannot be set" -- "$FERRY" -C "$p" config assess.house.owner Bob
expect_grep "unknown key assess.house.owner" "$work/err" "it is unknown"
"$FERRY" -C "$p" config >"$work/list"
expect_grep "^assess.house.owner  *Ada  *# declared by no loaded plugin" "$work/list" "config lists the setting no plugin declares, saying so"
"$FERRY" -C "$p" config --json >"$work/list.json"
python3 - "$work/list.json" <<'PY' && ok "and its JSON, type null" || fail "config --json of an undeclared key"
import json, sys
e = next(r for r in json.load(open(sys.argv[1])) if r["key"] == "assess.house.owner")
assert (e["value"], e["type"], e["declared_by"]) == ("Ada", None, None), e
PY
expect_exit 0 "--unset of the removed plugin's setting" -- "$FERRY" -C "$p" config --unset assess.house.owner --json
python3 - "$work/out" <<'PY' && ok "JSON: key, value null, the value it had, no declaration" || fail "JSON of an undeclared key's --unset"
import json, sys
e = json.load(open(sys.argv[1]))
assert (e["key"], e["value"], e["previous"], e["declared_by"], e["type"]) == ("assess.house.owner", None, "Ada", None, None), e
PY
"$FERRY" -C "$p" report --format json --output "$work/r.json" >/dev/null 2>&1
python3 -c 'import json,sys; assert "assess.house.owner" not in json.load(open(sys.argv[1]))["config"]' "$work/r.json" &&
	ok "the report no longer carries it" || fail "the report still carries the removed plugin's setting"
expect_exit 2 "a second --unset: it is unknown again" -- "$FERRY" -C "$p" config --unset assess.house.owner
expect_grep "unknown key assess.house.owner" "$work/err" "with the unknown-key error"
expect_exit 0 "verify after all the unsets" -- "$FERRY" -C "$p" verify

# the help, the completion and the manual page offer it, and say what a key not set does
expect_exit 0 "config --help" -- "$FERRY" config --help
expect_grep "\-\-unset" "$work/out" "config --help lists --unset"
expect_grep "not set.*exit 0" "$work/out" "and what an --unset of a key not set does"
"$FERRY" completion bash >"$work/comp.bash"
expect_grep "\-\-unset" "$work/comp.bash" "bash completion offers --unset"
"$FERRY" completion zsh >"$work/comp.zsh"
expect_grep "\-\-unset" "$work/comp.zsh" "zsh completion offers --unset"
"$FERRY" help --man >"$work/ferry.1"
expect_grep "B \\\\-\\\\-unset" "$work/ferry.1" "the manual page documents --unset"
expect_grep "not set.*exit 0" "$work/ferry.1" "and its exit when the key is not set"
# an unset setting with a default reads as that default, the one ferry applies: the plugin
# time limit, the effort formula's fixed days, and a category's weight (its own, from the
# category table); then set and unset again
expect_exit 0 "plugins.time_limit reads its default" -- "$FERRY" -C "$p" config plugins.time_limit
[ "$(cat "$work/out")" = 120 ] && ok "the default time limit is 120 s" || fail "time limit read as '$(cat "$work/out")'"
expect_exit 0 "effort.base_days reads its default" -- "$FERRY" -C "$p" config effort.base_days
[ "$(cat "$work/out")" = 2 ] && ok "the effort formula's fixed days default to 2" || fail "base days read as '$(cat "$work/out")'"
"$FERRY" -C "$p" config effort.weight.custom_kernel --json >"$work/w.json"
python3 -c 'import json,sys; e=json.load(open(sys.argv[1])); assert e["value"] is None and e["default"] == "3", e' "$work/w.json" \
	&& ok "a category weight's default is the category's own" || fail "category weight default: $(cat "$work/w.json")"
"$FERRY" -C "$p" config | grep -q "^plugins.time_limit .*(default 120)" && ok "the list shows the time limit's default" \
	|| fail "the list does not show the time limit's default"
"$FERRY" -C "$p" config effort.weight.custom_kernel 5 >/dev/null
"$FERRY" -C "$p" config --unset effort.weight.custom_kernel >/dev/null
[ "$("$FERRY" -C "$p" config effort.weight.custom_kernel)" = 3 ] && ok "unset, the category weight is its default again" \
	|| fail "after unset the weight is not its default"

# the audit log says what each event recorded, not only its kind
"$FERRY" -C "$p" log --events >"$work/events.txt"
expect_grep "effort.weight.custom_kernel = 5" "$work/events.txt" "log --events: a setting's new value"
expect_grep "effort.weight.custom_kernel unset (was 5)" "$work/events.txt" "log --events: an unset setting with the value it had"
expect_grep "dump PASS: gpu_params.pt against npu_params.pt" "$work/events.txt" "log --events: a comparison's verdict and inputs"
expect_grep "run [0-9]*: [0-9]* findings\?, " "$work/events.txt" "log --events: a check run's counts"
expect_grep "engagement proj-.*, project proj" "$work/events.txt" "log --events: the engagement begun"

finish
