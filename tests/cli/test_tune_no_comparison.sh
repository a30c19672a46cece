#!/bin/sh
# The tune phase is where the NPU run is shown to agree with the GPU run: with no loss
# comparison and no dump comparison on record at all, nothing shows it, so tune.acceptance
# holds the sign-off with an error that says what to do (in English and Chinese), and the
# report says that neither was performed (a row of its Verdicts table, a "not performed"
# verdict in its JSON) instead of leaving them out.
# One comparison of either kind lifts this rule (the other rules judge it).
. "$(dirname "$0")/lib.sh"

fx="$top/tests/fixtures/loss"
p="$work/none"
make_training_project "$p"
"$FERRY" init "$p" >/dev/null
sign_through "$p" assess design environment adapt
expect_exit 1 "signoff tune refused with no comparison of any kind on record" -- "$FERRY" -C "$p" signoff tune
one_line "$work/err" "the refusal is one line"
expect_grep "tune.acceptance: No loss comparison and no dump comparison is on record" "$work/err" "the refusal names the missing comparisons"
"$FERRY" -C "$p" findings --phase tune --status open --format json >"$work/f.json"
check_has error "ferry ingest loss-log FILE --label gpu|npu" "the advice: ingest both loss logs"
check_has error "ferry compare loss gpu npu" "the advice: compare the loss curves"
check_has error "ferry compare dump" "the advice: or compare dumps"
FERRY_LANG=zh "$FERRY" -C "$p" findings --phase tune --status open --format json >"$work/zh.json"
python3 - "$work/zh.json" <<'PY' && ok "the finding reads in Chinese" || fail "the finding is not translated"
import json, sys
fs = [f for f in json.load(open(sys.argv[1]))["findings"] if f["plugin"] == "tune.acceptance" and f["severity"] == "error"]
assert fs, fs
for f in fs:
    for t in (f["message"], f["suggestion"]):
        assert any("\u4e00" <= c <= "\u9fff" for c in t) and "is on record" not in t and "Ingest the" not in t, t
PY
"$FERRY" -C "$p" report --format md --output "$work/none.md" >/dev/null 2>&1
expect_grep "^| Loss curve | NOT PERFORMED |" "$work/none.md" "the report's Verdicts table: loss curve not performed"
expect_grep "^| Tensor dump | NOT PERFORMED |" "$work/none.md" "the report's Verdicts table: tensor dump not performed"
"$FERRY" -C "$p" report --format html --output "$work/none.html" >/dev/null 2>&1
expect_grep "NOT PERFORMED" "$work/none.html" "the HTML report says so too"
"$FERRY" -C "$p" report --format json --output "$work/none.json" >/dev/null 2>&1
python3 - "$work/none.json" "$work/none.md" "$work/none.html" <<'PY' && ok "the JSON report carries both as not performed, as the Markdown and HTML rows say" || fail "the JSON report leaves the missing comparisons out"
import json, sys
v = json.load(open(sys.argv[1]))["verdicts"]
md, html = open(sys.argv[2]).read(), open(sys.argv[3]).read()
titles = {"loss": "Loss curve", "dump": "Tensor dump"}
missing = sorted(k for k, x in v.items() if x["verdict"] == "not performed")
assert missing == ["dump", "loss"], v
for k in missing:
    assert set(v[k]) == {"verdict"}, v[k]  # no inputs: nothing was compared
    assert "| %s | NOT PERFORMED |" % titles[k] in md and "<td>%s</td><td>NOT PERFORMED</td>" % titles[k] in html, k
assert md.count("| NOT PERFORMED |") == html.count("<td>NOT PERFORMED</td>") == len(missing)
PY
FERRY_LANG=zh "$FERRY" -C "$p" report --format md --output "$work/none-zh.md" >/dev/null 2>&1
if grep -q "NOT PERFORMED\|No loss comparison" "$work/none-zh.md"; then fail "the Chinese report's rows are in English"; else ok "the Chinese report's rows are translated"; fi
"$FERRY" -C "$p" status --json >"$work/st.json"
python3 - "$work/st.json" <<'PY' && ok "tune is not signed off" || fail "tune signed off with no comparison"
import json, sys
ph = [p for p in json.load(open(sys.argv[1]))["phases"] if p["name"] == "tune"][0]
assert not ph.get("signed_off_at"), ph
PY

# a dump comparison alone: this rule is met (a passing one signs off), the report shows
# the dump row and says the loss curve was not performed
d="$work/dumponly"
make_training_project "$d"
"$FERRY" init "$d" >/dev/null
python3 - "$work" "$top/tests/tools" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from npyfile import save
save(sys.argv[1] + "/gpu.npy", [i * 0.01 for i in range(64)])
save(sys.argv[1] + "/npu.npy", [i * 0.01 + 1e-7 for i in range(64)])
PY
expect_exit 0 "the dumps agree" -- "$FERRY" -C "$d" compare dump "$work/gpu.npy" "$work/npu.npy"
sign_through "$d" assess design environment adapt
expect_exit 0 "signoff tune with a passing dump comparison and no loss comparison" -- "$FERRY" -C "$d" signoff tune
"$FERRY" -C "$d" report --format md --output "$work/dump.md" >/dev/null 2>&1
expect_grep "^| Tensor dump | PASS |" "$work/dump.md" "the dump row is the comparison's"
expect_grep "^| Loss curve | NOT PERFORMED |" "$work/dump.md" "the loss row says it was not performed"
"$FERRY" -C "$d" report --format json --output "$work/dump.json" >/dev/null 2>&1
python3 - "$work/dump.json" <<'PY' && ok "the JSON report: the dump's verdict, the loss curve not performed" || fail "JSON report of a dump comparison alone"
import json, sys
v = json.load(open(sys.argv[1]))["verdicts"]
assert v["dump"]["verdict"] == "pass" and v["dump"]["b"]["sha256"], v["dump"]
assert v["loss"] == {"verdict": "not performed"}, v["loss"]
PY

# a loss comparison alone: the same, the other way round
l="$work/lossonly"
make_training_project "$l"
"$FERRY" init "$l" >/dev/null
"$FERRY" -C "$l" ingest loss-log "$fx/gpu_plain.log" --label gpu >/dev/null
"$FERRY" -C "$l" ingest loss-log "$fx/npu_plain.log" --label npu >/dev/null
expect_exit 0 "the loss curves agree" -- "$FERRY" -C "$l" compare loss gpu npu
sign_through "$l" assess design environment adapt
expect_exit 0 "signoff tune with a passing loss comparison and no dump comparison" -- "$FERRY" -C "$l" signoff tune
"$FERRY" -C "$l" report --format md --output "$work/loss.md" >/dev/null 2>&1
expect_grep "^| Loss curve | PASS |" "$work/loss.md" "the loss row is the comparison's"
expect_grep "^| Tensor dump | NOT PERFORMED |" "$work/loss.md" "the dump row says it was not performed"
finish
