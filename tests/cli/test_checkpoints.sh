#!/bin/sh
# Checkpoints from the command line: outside edits become "manual edit" checkpoints,
# log/diff/revert work on ids, prefixes and "baseline", and verify catches tampering.
. "$(dirname "$0")/lib.sh"

p="$work/proj"
make_project "$p"
"$FERRY" init "$p" >/dev/null
orig=$(sha256sum "$p/train.py" | cut -c1-64)

# an edit made in an editor is captured before the next command
printf 'import torch\nimport torch_npu\n\nmodel = torch.nn.Linear(4, 2).npu()\n' >"$p/train.py"
rm "$p/models/net.py"
echo "extra = 1" >"$p/extra.py"
expect_exit 0 "status after outside edits" -- "$FERRY" -C "$p" status
expect_exit 0 "log --json" -- "$FERRY" -C "$p" log --json
python3 - "$work/out" <<'PY' && ok "manual edit checkpoint recorded, newest first" || fail "manual edit checkpoint"
import json, sys
log = json.load(open(sys.argv[1]))
cps = log["checkpoints"]
assert [c["kind"] for c in cps] == ["manual", "baseline"], cps
for c in cps:
    for k in ("id", "commit", "kind", "message", "actor", "time"):
        assert k in c, k
assert cps[0]["actor"] == "Test Runner <test@example.org>"
kinds = [e["kind"] for e in log["events"]]
assert kinds[0] == "checkpoint" and kinds[-1] == "init", kinds
PY
msg=$(git --git-dir="$p/.ferry/history.git" log -1 --format=%B)
echo "$msg" | grep -q "^Actor: Test Runner <test@example.org>$" && ok "commit carries Actor trailer" || fail "Actor trailer"
echo "$msg" | grep -q "^Audit: [0-9a-f]\{64\}$" && ok "commit carries Audit trailer" || fail "Audit trailer"
expect_exit 0 "a second command makes no empty checkpoint" -- "$FERRY" -C "$p" log --json
python3 -c "import json,sys; assert len(json.load(open(sys.argv[1]))['checkpoints']) == 2" "$work/out" && ok "no empty checkpoint" || fail "empty checkpoint made"

# diff by id, by prefix, and from the baseline
expect_exit 0 "diff by checkpoint id" -- "$FERRY" -C "$p" diff 2
expect_grep "^+model = torch.nn.Linear(4, 2).npu()" "$work/out" "diff shows the added line"
expect_grep "^deleted file mode" "$work/out" "diff shows the deleted file"
prefix=$(git --git-dir="$p/.ferry/history.git" rev-parse --short=8 HEAD)
expect_exit 0 "diff by commit prefix" -- "$FERRY" -C "$p" diff "$prefix"
expect_grep "extra.py" "$work/out" "prefix diff shows the new file"
expect_exit 0 "diff baseline" -- "$FERRY" -C "$p" diff baseline
expect_grep "torch_npu" "$work/out" "baseline diff shows the whole migration"
expect_exit 3 "diff of an unknown checkpoint" -- "$FERRY" -C "$p" diff 99
one_line "$work/err" "unknown checkpoint: one line"

# revert restores bytes exactly (CRLF file included) with a new commit
expect_exit 0 "revert the manual edit" -- "$FERRY" -C "$p" revert 2
[ "$(sha256sum "$p/train.py" | cut -c1-64)" = "$orig" ] && ok "revert restores train.py byte for byte" || fail "revert train.py bytes"
od -c "$p/models/net.py" | grep -q '\\r' && ok "revert restores the deleted CRLF file" || fail "revert deleted file"
[ ! -e "$p/extra.py" ] && ok "revert removes the added file" || fail "revert added file"
n=$(git --git-dir="$p/.ferry/history.git" rev-list --count HEAD)
[ "$n" -eq 3 ] && ok "revert is a new commit; history not rewritten" || fail "revert commit count $n"
expect_exit 1 "reverting it again is refused by the state" -- "$FERRY" -C "$p" revert 2
expect_grep "^ferry: checkpoint #2 (manual): nothing to revert: its changes are already undone$" "$work/err" \
	"reverting twice names the checkpoint by its number"
# the baseline can never be reverted: bad input (2), one line that says why
expect_exit 2 "reverting the baseline is bad input" -- "$FERRY" -C "$p" revert baseline
one_line "$work/err" "reverting the baseline: one line"
expect_grep "baseline: the baseline is the code as received and cannot be reverted" "$work/err" \
	"reverting the baseline: the line says why"
id=$(sqlite3 "$p/.ferry/engagement.db" "SELECT id FROM checkpoints WHERE kind = 'baseline'")
expect_exit 2 "reverting the baseline by its id is bad input too" -- "$FERRY" -C "$p" revert "$id"

# a revert that later changes conflict with: the request was valid and the state refuses
# it (1), with nothing changed and one line naming the file in conflict
printf 'import torch\nimport torch_npu\n\nmodel = torch.nn.Linear(4, 2).npu()\n' >"$p/train.py"
"$FERRY" -C "$p" status >/dev/null 2>&1
fixed=$(sqlite3 "$p/.ferry/engagement.db" "SELECT max(id) FROM checkpoints")
printf 'import torch\nimport torch_npu\n\nmodel = torch.nn.Linear(4, 2).npu(0)\n' >"$p/train.py"
"$FERRY" -C "$p" status >/dev/null 2>&1
before=$(tree_hash "$p")
ncp=$(sqlite3 "$p/.ferry/engagement.db" "SELECT count(*) FROM checkpoints")
expect_exit 1 "a revert that a later change conflicts with is refused" -- "$FERRY" -C "$p" revert "$fixed"
one_line "$work/err" "a conflicting revert: one line"
later=$(sqlite3 "$p/.ferry/engagement.db" "SELECT max(id) FROM checkpoints")
expect_grep "checkpoint #$fixed (manual): later changes conflict with reverting it: checkpoint #$later (manual) changed train.py" \
	"$work/err" "a conflicting revert names the later checkpoint by its number, and the file"
expect_grep "where one is a hand edit (someone's own work, which a revert would undo), undo this change by hand" \
	"$work/err" "the refusal does not send anyone to revert a hand edit blindly"
[ "$(tree_hash "$p")" = "$before" ] && [ "$(sqlite3 "$p/.ferry/engagement.db" "SELECT count(*) FROM checkpoints")" = "$ncp" ] &&
	ok "a conflicting revert changes nothing" || fail "a conflicting revert changed the project or the record"

# a later change that was itself reverted cancels out: the refusal names only what stands
# in the way (not a change and its revert, which would send the user round in a circle)
printf 'import torch\nimport torch_npu\n\nmodel = torch.nn.Linear(4, 2).npu(0)\nprint(model)\n' >"$p/train.py"
"$FERRY" -C "$p" status >/dev/null 2>&1
undone=$(sqlite3 "$p/.ferry/engagement.db" "SELECT max(id) FROM checkpoints")
expect_exit 0 "revert the newest hand edit" -- "$FERRY" -C "$p" revert "$undone"
expect_exit 1 "the first revert is still refused" -- "$FERRY" -C "$p" revert "$fixed"
expect_grep "later changes conflict with reverting it: checkpoint #$later (manual) changed train.py; revert" \
	"$work/err" "the refusal names the one change that stands in the way"
if grep -q "checkpoint #$undone\b" "$work/err" || grep -q "(revert)" "$work/err"; then
	fail "the refusal names a change that was reverted, or its revert"
else
	ok "a change and its revert are not named"
fi

# verify: intact, then tampered
expect_exit 0 "verify an intact record" -- "$FERRY" -C "$p" verify
expect_grep "^ok" "$work/out" "verify says ok"
cp -r "$p" "$work/t1"
sqlite3 "$work/t1/.ferry/engagement.db" "DROP TRIGGER audit_no_update; UPDATE audit SET payload = replace(payload, 'Test Runner', 'Someone Else') WHERE seq = 2;"
expect_exit 1 "verify catches an altered event" -- "$FERRY" -C "$work/t1" verify
expect_grep "audit event 2" "$work/err" "verify names the altered event"
one_line "$work/err" "tampering: one line"
cp -r "$p" "$work/t2"
sqlite3 "$work/t2/.ferry/engagement.db" "DROP TRIGGER audit_no_delete; DELETE FROM audit WHERE seq = 3;"
expect_exit 1 "verify catches a removed event" -- "$FERRY" -C "$work/t2" verify
expect_grep "audit event 3" "$work/err" "verify names the removed event"
cp -r "$p" "$work/t3"
obj=$(git --git-dir="$work/t3/.ferry/history.git" rev-parse HEAD)
rm -f "$work/t3/.ferry/history.git/objects/$(echo "$obj" | cut -c1-2)/$(echo "$obj" | cut -c3-)"
expect_exit 1 "verify catches a missing commit" -- "$FERRY" -C "$work/t3" verify
expect_grep "$(echo "$obj" | cut -c1-12)" "$work/err" "verify names the missing commit"

finish
