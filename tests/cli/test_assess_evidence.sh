#!/bin/sh
# A check of the survey that reads only artifacts (assess.gpu_baseline: is the GPU loss log
# on record?) judges a new one at ingest, as ingest says; the survey itself is one run of
# every assess check, so a run of some of them (that re-judging, or --plugin) is never taken
# for it: before the whole survey ran there is no readiness, and its phase has not started.
. "$(dirname "$0")/lib.sh"

printf 'step 1 loss 2.31\nstep 2 loss 1.90\nstep 3 loss 1.72\n' >"$work/gpu.log"

p="$work/surveyed"
make_project "$p"
"$FERRY" init "$p" >/dev/null
"$FERRY" -C "$p" check --phase assess >/dev/null
"$FERRY" -C "$p" findings --plugin assess.gpu_baseline --status open >"$work/before.txt"
expect_grep "No loss log from the GPU run" "$work/before.txt" "the survey asks for the GPU loss log"
expect_exit 0 "ingest the GPU loss log" -- "$FERRY" -C "$p" ingest loss-log "$work/gpu.log" --label gpu
expect_grep "judged by the checks that read it" "$work/out" "ingest says the checks that read it judged it"
"$FERRY" -C "$p" findings --plugin assess.gpu_baseline --status open >"$work/after.txt"
if grep -q "No loss log" "$work/after.txt"; then
	fail "the survey still asks for the loss log just ingested"
	sed 's/^/     | /' "$work/after.txt" | head -3
else ok "the loss log settles the survey's request at once"; fi

# before any survey: an ingest (or one check run alone) is no survey
q="$work/fresh"
make_project "$q"
"$FERRY" init "$q" >/dev/null
"$FERRY" -C "$q" ingest loss-log "$work/gpu.log" --label gpu >/dev/null
"$FERRY" -C "$q" check --plugin assess.cuda_apis >/dev/null
"$FERRY" -C "$q" status --format json >"$work/s.json"
python3 - "$work/s.json" <<'PY' && ok "no readiness and no survey before the whole survey ran" ||
import json, sys
s = json.load(open(sys.argv[1]))
assess = [p for p in s["phases"] if p["name"] == "assess"][0]
assert s["assessment"]["ran"] is False, s["assessment"]
assert assess["runs"] == 0, assess
PY
	fail "an ingest or a run of one check was taken for the survey"
"$FERRY" -C "$q" check --phase assess >/dev/null
"$FERRY" -C "$q" status --format json >"$work/s.json"
python3 - "$work/s.json" <<'PY' && ok "the whole survey gives the readiness" || fail "the whole survey gave no readiness"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["assessment"]["ran"] is True, s["assessment"]
PY

# a survey check that reads the code still runs only with the whole survey
mkdir -p "$q/.ferry/plugins"
cat >"$q/.ferry/plugins/code.lua" <<'LUA'
return {
	id = "assess.local_code", phase = "assess", title = "t", severity = "info",
	triggers = { "cuda" }, evidence = { "loss-log" },
	run = function(ctx) end,
}
LUA
"$FERRY" -C "$q" plugins >"$work/out" 2>"$work/err"
expect_grep "evidence: an assess check that reads code runs only with the whole survey" "$work/err" \
	"an assess check reading code may not declare evidence"
finish
