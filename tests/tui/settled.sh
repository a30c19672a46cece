#!/bin/sh
# The workbench on a survey finding whose problem the adapt phase has since fixed: the
# findings list marks it as settled, and its detail says by which adapt finding and
# checkpoint, and shows the code as the survey read it (the line it names), saying that
# the file has changed since and which key checks again. A survey finding adapt left open
# (a host sync in the loop) says nothing of the kind. Skipped (exit 0) only when tmux is
# not installed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
FERRY="${FERRY:-$top/ferry}"
if ! command -v tmux >/dev/null 2>&1; then
	echo "tui settled: tmux is not installed; skipped"
	exit 0
fi
[ -x "$FERRY" ] || { echo "FAIL $FERRY is not built"; exit 1; }
. "$top/tests/tui/lib.sh"

proj="$work/proj"
mkdir -p "$proj"
cp "$top/tests/fixtures/projects/settled/train.py" "$proj/"
export FERRY_ACTOR='TUI Tester <tui@example.org>'
"$FERRY" -C "$proj" init >/dev/null 2>&1 || fail "init"
"$FERRY" -C "$proj" check --phase assess >/dev/null 2>&1
"$FERRY" -C "$proj" check --phase adapt >/dev/null 2>&1
"$FERRY" -C "$proj" fix --all --phase adapt --yes >/dev/null 2>&1 || fail "adapt's fixes apply"
# the ids of the survey's set_device finding and of its host sync in the loop
ids=$("$FERRY" -C "$proj" findings --phase assess --format json | python3 -c '
import json, sys
fs = json.load(sys.stdin)["findings"]
pick = lambda p, t: [f for f in fs if f["plugin"] == p and t in f["message"]][0]
s = pick("assess.cuda_apis", "set_device")
print(s["id"], s["settled_by"]["id"], s["settled_by"]["checkpoint"], pick("assess.host_sync_in_loop", "synchronize")["id"])')
set -- $ids
set_id=$1 by=$2 cp=$3 sync_id=$4

launcher "$proj"
start main en 120 40
expect main "Findings · assess" "the workbench opens on the survey"
keys main / "#$set_id" Enter
expect main "✓ WARN train.py:9" "the list marks the settled survey finding as fixed"
keys main Enter
expect main "[settled]" "its detail's heading says settled"
expect main "Settled later" "the detail has a section on what settled it"
expect main "Fixed in phase adapt as #$by by checkpoint $cp." "it names the adapt finding and the checkpoint"
expect main "torch.cuda.set_device(0)" "the source is the code as the survey read it"
expect main "The code as check run 1 read it; the file has changed since (r runs the checks again)." \
	"the detail says the file has changed since that run"
keys main Escape / "#$sync_id" Enter
expect main "• INFO train.py:17" "the host sync in the loop stays open in the list"
keys main Enter
expect main "[open]" "its detail's heading says open"
if poll 2 lacks main "Settled later"; then ok "nothing settled the host sync"; else fail "the host sync is called settled"; fi
keys main Escape Q
echo "tui settled: $fails failed"
exit "$fails"
