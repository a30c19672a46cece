#!/bin/sh
# A revert is a decision: the consultant undid a fix because it was wrong for this client.
# The finding is open again, and the next fix of many findings (--all, --plugin, --file, the
# workbench's F) must not silently apply the same edit again: it leaves the finding out
# with the reason, and the revert says so. Asked for by id, the fix applies again.
. "$(dirname "$0")/lib.sh"

p="$work/proj"
mkdir -p "$p"
cp "$top/tests/fixtures/projects/settled/train.py" "$p/"
"$FERRY" -C "$p" init >/dev/null 2>&1 || fail "init"
"$FERRY" -C "$p" check --phase adapt >/dev/null 2>&1
expect_exit 0 "adapt's fixes apply" -- "$FERRY" -C "$p" fix --all --phase adapt --yes
# the newest checkpoint: its plugin and the findings it fixed
read -r head plugin ids <<EOF2
$("$FERRY" -C "$p" log --format json | python3 -c '
import json, sys
c = max(json.load(sys.stdin)["checkpoints"], key=lambda c: c["id"])
print(c["id"], c["plugin"], ",".join(str(i) for i in c["findings"]))')
EOF2
first=${ids%%,*}
cp "$p/train.py" "$work/fixed.py"
expect_exit 0 "the newest fix is reverted" -- "$FERRY" -C "$p" revert "$head"
expect_grep "is open again; a fix of many findings leaves it out (\`ferry fix --finding $first\` applies it again)\|are open again; a fix of many findings leaves them out (\`ferry fix --finding $first\` applies one again)" \
	"$work/out" "the revert says the findings are open again and bulk fixes leave them out"
cp "$p/train.py" "$work/reverted.py"

expect_exit 0 "a fix of all of adapt runs" -- "$FERRY" -C "$p" fix --all --phase adapt --yes
cmp -s "$p/train.py" "$work/reverted.py" && ok "the reverted fix is not applied again by --all" \
	|| fail "the reverted fix is not applied again by --all"
expect_grep "refused: finding $first (train.py:[0-9]*): its fix (checkpoint $head) was undone by checkpoint [0-9]*, so a fix of many findings leaves it out; \`ferry fix --finding $first\` applies it again" \
	"$work/err" "the bulk fix names the finding left out and why"
expect_exit 0 "a fix of the plugin's findings runs" -- "$FERRY" -C "$p" fix --plugin "$plugin" --dry-run
expect_grep "its fix (checkpoint $head) was undone" "$work/err" "--plugin leaves it out too"
expect_exit 0 "a fix of the file's findings runs" -- "$FERRY" -C "$p" fix --all --file train.py --dry-run
expect_grep "its fix (checkpoint $head) was undone" "$work/err" "--file leaves it out too"
expect_exit 0 "the JSON of a bulk fix" -- "$FERRY" -C "$p" fix --all --dry-run --format json
python3 - "$work/out" "$first" <<'PY' && ok "the JSON lists it among the refused" || fail "the JSON lists it among the refused"
import json, sys
d = json.load(open(sys.argv[1]))
assert any(r.startswith("finding %s " % sys.argv[2]) and "was undone" in r for r in d["refused"]), d["refused"]
PY

# asked for by id, the fix applies again
expect_exit 0 "fix --finding applies the reverted fix again" -- "$FERRY" -C "$p" fix --finding "${ids%%,*}" --yes
grep -q "torch.npu\|\.npu()\|torch_npu" "$p/train.py" && ! cmp -s "$p/train.py" "$work/reverted.py" \
	&& ok "the file has the fix again" || fail "the file has the fix again"
finish
