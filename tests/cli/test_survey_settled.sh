#!/bin/sh
# The assess survey lists the code as received: its findings stay open after the adapt
# phase fixes (or a person waives) the same problem at the same code under adapt's own
# finding. Every view of the record says what settled such a survey finding, so a site is
# never shown open in the survey and fixed in adapt without a word: `findings --format
# json` (settled_by), the reports (md, html, json, csv; English and Chinese), and the
# readiness, which stops counting it. Another problem at the same code (a host sync in the
# loop, still one after its torch.cuda call is renamed) is not settled by the rename; a
# revert of the fix unsettles it again.
. "$(dirname "$0")/lib.sh"

p="$work/proj"
mkdir -p "$p"
cp "$top/tests/fixtures/projects/settled/train.py" "$p/"
"$FERRY" -C "$p" init >/dev/null 2>&1 || fail "init"
"$FERRY" -C "$p" check --phase assess >/dev/null 2>&1
"$FERRY" -C "$p" check --phase adapt >/dev/null 2>&1
expect_exit 0 "adapt's fixes apply" -- "$FERRY" -C "$p" fix --all --phase adapt --yes

# survey PLUGIN TEXT FIELD: FIELD of the assess finding of PLUGIN whose message holds TEXT
# (settled_by as "phase status checkpoint", or "none"; status; id)
survey() {
	"$FERRY" -C "$p" findings --phase assess --format json | python3 -c '
import json, sys
plugin, text, field = sys.argv[1:]
for f in json.load(sys.stdin)["findings"]:
    if f["plugin"] == plugin and text in f["message"]:
        s = f.get("settled_by")
        if field == "settled":
            print("none" if not s else "%s %s %s" % (s["phase"], s["status"], s["checkpoint"]))
        else:
            print(f[field])
        break
else:
    print("missing")' "$@"
}

got=$(survey assess.cuda_apis set_device settled)
case "$got" in
"adapt fixed "[1-9]*) ok "the survey's torch.cuda.set_device names the adapt fix and its checkpoint" ;;
*) fail "the survey's torch.cuda.set_device names the adapt fix and its checkpoint: $got" ;;
esac
[ "$(survey assess.cuda_apis set_device status)" = open ] \
	&& ok "the survey finding itself stays open (the code as received)" || fail "the survey finding itself stays open"
case "$(survey assess.device_calls randn settled)" in
"adapt fixed "*) ok "a .cuda() call fixed by adapt settles the survey's" ;;
*) fail "a .cuda() call fixed by adapt settles the survey's" ;;
esac
[ "$(survey assess.host_sync_in_loop synchronize settled)" = none ] \
	&& ok "the host sync in the loop is not settled by renaming its torch.cuda call" \
	|| fail "the host sync in the loop is not settled by renaming its torch.cuda call"
[ "$(survey assess.env_vars CUDA_HOME settled)" = none ] \
	&& ok "a site adapt left open is not settled" || fail "a site adapt left open is not settled"
cp_id=$(survey assess.cuda_apis set_device settled | cut -d' ' -f3)
set_id=$(survey assess.cuda_apis set_device id)
sync_id=$(survey assess.host_sync_in_loop synchronize id)

# the reports
expect_exit 0 "the Markdown report is written" -- "$FERRY" -C "$p" report --format md --output "$work/r.md"
grep -F "(#$set_id, assess.cuda_apis)" "$work/r.md" >"$work/line"
expect_grep '\*\*settled\*\*' "$work/line" "the report marks the survey's set_device settled, not open"
expect_grep "Settled later: fixed in phase adapt as #[0-9]* by checkpoint $cp_id. The survey lists the code as received." "$work/r.md" \
	"the report says which adapt finding and checkpoint settled it"
grep -F "(#$sync_id, assess.host_sync_in_loop)" "$work/r.md" >"$work/line"
expect_grep '\*\*open\*\*' "$work/line" "the host sync stays open in the report"
expect_exit 0 "the HTML report is written" -- "$FERRY" -C "$p" report --format html --output "$work/r.html"
expect_grep 'class="badge st-fixed">settled<' "$work/r.html" "the HTML report colours a settled finding as fixed and names it settled"
expect_exit 0 "the JSON report is written" -- "$FERRY" -C "$p" report --format json --output "$work/r.json"
python3 - "$work/r.json" "$set_id" <<'PY' && ok "the JSON report carries settled_by" || fail "the JSON report carries settled_by"
import json, sys
doc = json.load(open(sys.argv[1]))
f = [f for f in doc["findings"] if f["id"] == int(sys.argv[2])][0]
assert f["status"] == "open" and f["settled_by"]["phase"] == "adapt" and f["settled_by"]["status"] == "fixed", f
PY
expect_exit 0 "the CSV report is written" -- "$FERRY" -C "$p" report --format csv --output "$work/r.csv"
expect_grep "settled_by,settled_status" "$work/r.csv" "the CSV has the settled columns"
grep "^$set_id," "$work/r.csv" >"$work/line"
expect_grep ",[0-9][0-9]*,fixed" "$work/line" "the CSV row of the settled finding ends with what settled it"
FERRY_LANG=zh "$FERRY" -C "$p" report --format md --lang zh --output "$work/zh.md" >/dev/null 2>&1
expect_grep "后续阶段已处理：在适配阶段由 #[0-9]* 于检查点 $cp_id 修复。" "$work/zh.md" "the Chinese report says it in Chinese"

# a waiver of adapt's finding settles the survey's too
env_id=$("$FERRY" -C "$p" findings --phase adapt --format json | python3 -c '
import json, sys
print([f["id"] for f in json.load(sys.stdin)["findings"] if f["plugin"] == "adapt.env_vars"][0])')
expect_exit 0 "adapt's CUDA_HOME finding is waived" -- "$FERRY" -C "$p" waive "$env_id" --reason "the launcher unsets it on the NPU host"
[ "$(survey assess.env_vars CUDA_HOME settled)" = "adapt waived None" ] \
	&& ok "a waiver in adapt settles the survey's finding" || fail "a waiver in adapt settles the survey's finding: $(survey assess.env_vars CUDA_HOME settled)"
"$FERRY" -C "$p" report --format md --output "$work/r2.md" >/dev/null 2>&1
expect_grep "Settled later: waived in phase adapt as #$env_id." "$work/r2.md" "the report says the waiver settled it"

# a site adapt leaves for a person says why in adapt's words (a comparison that turns a
# CUDA feature on), and the survey describes it in its own: waiving adapt's settles it
# all the same (the same check's site at the same code)
cat >"$p/optim.py" <<'PY'
import inspect

import torch


def make_optimizer(params, device_type):
    fused_available = "fused" in inspect.signature(torch.optim.AdamW).parameters
    use_fused = fused_available and device_type == "cuda"
    return torch.optim.AdamW(params, fused=use_fused)
PY
"$FERRY" -C "$p" check --phase assess >/dev/null 2>&1
"$FERRY" -C "$p" check --phase adapt >/dev/null 2>&1
gate_id=$("$FERRY" -C "$p" findings --phase adapt --plugin adapt.device_type_branches --format json | python3 -c '
import json, sys
print([f["id"] for f in json.load(sys.stdin)["findings"] if f["file"] == "optim.py"][0])')
expect_exit 0 "adapt's feature gate is waived" -- "$FERRY" -C "$p" waive "$gate_id" --reason "torch_npu 2.1 has no fused AdamW; NpuFusedAdamW in tune"
[ "$(survey assess.device_type_branches "device_type == \"cuda\"" settled)" = "adapt waived None" ] \
	&& ok "waiving adapt's left-for-a-person site settles the survey's, worded differently" \
	|| fail "waiving adapt's left-for-a-person site settles the survey's: $(survey assess.device_type_branches "device_type == \"cuda\"" settled)"

# reverting the checkpoint (and the later ones that touched the same file) reopens adapt's
# finding, and the survey's is no longer settled
head_id=$("$FERRY" -C "$p" log --format json | python3 -c 'import json, sys; print(max(c["id"] for c in json.load(sys.stdin)["checkpoints"]))')
c=$head_id
while [ "$c" -ge "$cp_id" ]; do
	"$FERRY" -C "$p" revert "$c" >/dev/null 2>"$work/err" || { fail "checkpoint $c is reverted: $(cat "$work/err")"; break; }
	c=$((c - 1))
done
[ "$(survey assess.cuda_apis set_device settled)" = none ] \
	&& ok "after the revert the survey's finding is no longer settled" || fail "after the revert the survey's finding is no longer settled"

finish
