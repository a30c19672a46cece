#!/bin/sh
# tune.loss_curves says what is still to do about the loss curves, and only that: once the
# newest GPU and NPU logs are compared, tune.acceptance gives the verdict and the advice to
# compare goes; a newer log brings it back, as an error: the verdict on record is about
# older runs, so the tune phase cannot be signed off on it. The comparison's figures stay readable when the
# NPU loss explodes (a relative error of 7e26 % was printed digit by digit).
. "$(dirname "$0")/lib.sh"

fx="$top/tests/fixtures/loss"
p="$work/proj"
make_project "$p"
"$FERRY" init "$p" >/dev/null
"$FERRY" -C "$p" ingest loss-log "$fx/gpu_plain.log" --label gpu >/dev/null
"$FERRY" -C "$p" ingest loss-log "$fx/npu_plain.log" --label npu >/dev/null
curves() { "$FERRY" -C "$p" check --plugin tune.loss_curves --format json 2>/dev/null |
	python3 -c 'import json,sys; print("\n".join(f["message"] for f in json.load(sys.stdin)["findings"] if f["status"] == "open"))'; }
case "$(curves)" in *"Loss logs of both runs are on record"*) ok "both logs on record: compare them" ;;
	*) fail "no advice to compare: '$(curves)'" ;; esac
"$FERRY" -C "$p" compare loss gpu npu >/dev/null 2>&1
[ -z "$(curves)" ] && ok "after the comparison, no advice to compare again" || fail "still advised: '$(curves)'"
"$FERRY" -C "$p" ingest loss-log "$fx/npu_blowup_plain.log" --label npu >/dev/null
case "$(curves)" in *"newer than the latest comparison"*) ok "a newer NPU log brings the advice back" ;;
	*) fail "a newer log was not noticed: '$(curves)'" ;; esac
# and it holds the sign-off: the verdict on record (a pass) is about runs older than the
# NPU log now on record, which blew up; nobody may sign the tune phase off on it unjudged
"$FERRY" -C "$p" status --json >"$work/status.json" 2>/dev/null
"$FERRY" -C "$p" check --plugin tune.loss_curves --format json >"$work/curves.json" 2>/dev/null
python3 - "$work/curves.json" "$work/status.json" <<'PY' && ok "an uncompared newer log is an error that holds the tune sign-off" || fail "a newer, uncompared log does not hold the sign-off"
import json, sys
fs = [f for f in json.load(open(sys.argv[1]))["findings"] if f["status"] == "open" and "newer than" in f["message"]]
assert fs and all(f["severity"] == "error" for f in fs), fs
st = json.load(open(sys.argv[2]))
tune = [p for p in st["phases"] if p.get("phase", p.get("name")) == "tune"][0]
assert tune["open_errors"] >= 1, tune
PY

expect_exit 1 "the blown-up run fails" -- "$FERRY" -C "$p" compare loss gpu npu
if grep -Eq '[0-9]{10,}\.[0-9]+%' "$work/out"; then
	fail "a relative error printed digit by digit: $(grep -Eo '[0-9]{10,}\.[0-9]+%' "$work/out" | head -1)"
else
	ok "huge relative errors are printed with an exponent"
fi
expect_grep "e+2[0-9]%" "$work/out" "the exploded step's error reads as a power of ten"
# a failure of other data that stands (app/review.c: a failing comparison stands until a
# passing one of the same baseline) is not "the latest comparison": logs compared since
# are compared, so the advice to compare them goes once they are, and what stays is the
# standing failure, whose advice names what closes it
q="$work/standing"
make_project "$q"
"$FERRY" init "$q" >/dev/null
"$FERRY" -C "$q" compare loss "$fx/gpu_ranks.log" "$fx/npu_blowup_ranks.log" >/dev/null 2>&1
"$FERRY" -C "$q" ingest loss-log "$fx/gpu_plain.log" --label gpu >/dev/null
"$FERRY" -C "$q" ingest loss-log "$fx/npu_plain.log" --label npu >/dev/null
expect_exit 0 "the newest logs pass" -- "$FERRY" -C "$q" compare loss gpu npu
expect_exit 0 "and pass again" -- "$FERRY" -C "$q" compare loss gpu npu
"$FERRY" -C "$q" findings --phase tune --status open --format json >"$work/standing.json"
python3 - "$work/standing.json" <<'PY' && ok "after the newest logs are compared, only the standing failure blocks, saying what closes it" || fail "standing failure: wrong blockers"
import json, sys
fs = json.load(open(sys.argv[1]))["findings"]
errs = [f for f in fs if f["severity"] == "error"]
assert not any(f["plugin"] == "tune.loss_curves" for f in fs), [f["message"] for f in fs if f["plugin"] == "tune.loss_curves"]
assert len(errs) == 1 and errs[0]["plugin"] == "tune.acceptance", [(f["plugin"], f["message"]) for f in errs]
e = errs[0]
assert "npu_blowup_ranks.log" in e["message"] and "so this failure stands" in e["message"], e["message"]
# the advice is one that closes it: a comparison of the same baseline, or a waiver; not
# "a passing comparison closes this finding", which the newer pass just did not
assert "gpu_ranks.log" in e["suggestion"] and "same baseline" in e["suggestion"], e["suggestion"]
assert "waive" in e["suggestion"], e["suggestion"]
PY
# what it advises closes it: the same baseline compared with a run that agrees
expect_exit 0 "the same baseline against a run that agrees passes" -- "$FERRY" -C "$q" compare loss "$fx/gpu_ranks.log" "$fx/npu_ranks.log"
"$FERRY" -C "$q" findings --phase tune --status open --format json >"$work/standing.json"
python3 - "$work/standing.json" <<'PY' && ok "a pass of the same baseline closes the standing failure" || fail "the advised comparison did not close it"
import json, sys
fs = json.load(open(sys.argv[1]))["findings"]
assert not [f for f in fs if f["severity"] == "error"], [(f["plugin"], f["message"]) for f in fs if f["severity"] == "error"]
PY
# a newer log still brings the advice back, naming the newest comparison, not an older one
"$FERRY" -C "$q" ingest loss-log "$fx/npu_short_plain.log" --label npu >/dev/null
"$FERRY" -C "$q" log --json >"$work/standing-log.json"
newest=$(python3 -c 'import json,sys; print(max(e["seq"] for e in json.load(open(sys.argv[1]))["events"] if e["kind"] == "compare"))' "$work/standing-log.json")
"$FERRY" -C "$q" findings --plugin tune.loss_curves --status open --format json >"$work/standing.json"
python3 - "$work/standing.json" "$newest" <<'PY' && ok "a newer NPU log is reported against the newest comparison" || fail "newer log: wrong comparison named"
import json, sys
fs = json.load(open(sys.argv[1]))["findings"]
m = [f["message"] for f in fs if "newer than the latest comparison" in f["message"]]
assert len(m) == 1 and "(audit event %s)" % sys.argv[2] in m[0] and "NPU: artifact 3" in m[0] and "GPU" not in m[0], m
PY

finish
