#!/bin/sh
# A source file the checks cannot read whole (a syntax error) is reported by the run that
# met it, in the phase of the checks it kept from the file: the count a run prints is what it
# lists, and the phase's findings, status and report show it.
. "$(dirname "$0")/lib.sh"

p="$work/proj"
make_project "$p"
"$FERRY" init "$p" >/dev/null
printf 'import torch\nx = torch.zeros(1).cuda(\n' >"$p/broken.py"

expect_exit 0 "check --phase adapt runs" -- "$FERRY" -C "$p" check --phase adapt
cp "$work/out" "$work/adapt.txt"
expect_grep "broken.py: syntax error" "$work/adapt.txt" "the adapt run says it could not parse broken.py"
n_said=$(sed -n 's/^run [0-9]*: \([0-9]*\) findings reported.*/\1/p' "$work/adapt.txt")
n_shown=$(grep -c '^#[0-9]' "$work/adapt.txt")
[ "$n_said" = "$n_shown" ] && ok "the adapt run lists as many findings as it says it reported ($n_shown)" ||
	fail "the adapt run says $n_said findings and lists $n_shown"

"$FERRY" -C "$p" findings --phase adapt --format json >"$work/f.json"
check_has warning "broken.py: syntax error" "findings --phase adapt shows the file adapt could not parse"
"$FERRY" -C "$p" status --format json >"$work/s.json"
python3 - "$work/s.json" <<'PY' && ok "status counts the source warning under adapt" || fail "status does not count it under adapt"
import json, sys
s = json.load(open(sys.argv[1]))
ph = {x["name"]: x for x in s["phases"]}
sys.exit(0 if ph["adapt"]["open_warnings"] == 4 and ph["assess"]["open_warnings"] == 0 else 1)
PY

# a run of one check counts and lists the same findings too
expect_exit 0 "check --plugin adapt.device_calls runs" -- "$FERRY" -C "$p" check --plugin adapt.device_calls
n_said=$(sed -n 's/^run [0-9]*: \([0-9]*\) findings reported.*/\1/p' "$work/out")
n_shown=$(grep -c '^#[0-9]' "$work/out")
[ "$n_said" = "$n_shown" ] && ok "a one-check run lists as many findings as it says it reported ($n_shown)" ||
	fail "a one-check run says $n_said findings and lists $n_shown"

# the survey files its own; fixing the syntax closes each phase's warning at that phase's run
"$FERRY" -C "$p" check --phase assess >/dev/null
"$FERRY" -C "$p" findings --phase assess --format json >"$work/f.json"
check_has warning "broken.py: syntax error" "the assess survey reports it under assess"
"$FERRY" -C "$p" findings --phase adapt --status open --format json >"$work/f.json"
check_has warning "broken.py: syntax error" "the survey's run leaves adapt's warning open"
printf 'import torch\nx = torch.zeros(1).cuda()\n' >"$p/broken.py"
"$FERRY" -C "$p" check --phase adapt >/dev/null
"$FERRY" -C "$p" findings --phase adapt --status open --format json >"$work/f.json"
has warning "syntax error" && fail "the adapt warning stays open after the file was fixed" ||
	ok "the adapt run closes its source warning once the file parses"
check_has warning "moves this object to an NVIDIA GPU" "the adapt checks now see the call in the repaired file"
"$FERRY" -C "$p" findings --phase assess --status open --format json >"$work/f.json"
check_has warning "broken.py: syntax error" "the adapt run leaves the survey's warning to the survey"
finish
