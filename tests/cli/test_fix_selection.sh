#!/bin/sh
# `fix --finding N`: every finding asked for is fixed or accounted for. A finding whose
# code was edited since it was reported is closed by the fresh run the fix makes (its
# fingerprint changed) and reopened under a new id at the same place: it used to vanish
# from the answer, marked fixed while its code still held the construct. The answer names
# it and its successor, and the successor is not fixed in its place. An id the engagement
# does not hold is exit 3, as for `waive 99`; one that is fixed or waived is refused.
. "$(dirname "$0")/lib.sh"
export FERRY_LANG=en

# stale_project DIR: adapt checked, then the line of finding #2 (.cuda()) edited
stale_project() {
	mkdir -p "$1"
	printf 'import torch\n\n\ndef main():\n    x = torch.zeros(2).cuda()\n    torch.cuda.synchronize()\n    return x\n' >"$1/train.py"
	"$FERRY" init "$1" --client t >/dev/null 2>&1 || fail "init"
	"$FERRY" -C "$1" check --phase adapt >/dev/null 2>&1
	sed -i 's/torch.zeros(2)/torch.ones(3)/' "$1/train.py"
}
# id_at DIR PLUGIN STATUS: the id of PLUGIN's finding of that status on train.py:5
id_at() {
	"$FERRY" -C "$1" findings --format json | python3 -c '
import json, sys
print(" ".join(str(f["id"]) for f in json.load(sys.stdin)["findings"]
               if f["plugin"] == sys.argv[1] and f["status"] == sys.argv[2] and f["line"] == 5))' "$2" "$3"
}

p="$work/p"
stale_project "$p"
[ "$(id_at "$p" adapt.device_calls open)" = 2 ] || fail "the fixture's .cuda() finding is not #2"
expect_exit 0 "fix --finding 2 1 applies #1 and accounts for #2" -- "$FERRY" -C "$p" fix --finding 2 1 --yes --format json
succ=$(id_at "$p" adapt.device_calls open)
[ -n "$succ" ] && [ "$succ" != 2 ] && ok "a new finding #$succ reports train.py:5" || fail "no successor of #2 is open: '$succ'"
python3 - "$work/out" "$succ" <<'PY' && ok "the JSON refuses #2, naming #$succ as its successor" || fail "the JSON does not account for #2"
import json, sys
d = json.load(open(sys.argv[1]))
succ = int(sys.argv[2])
assert d["findings"] == 1, d
lines = [r for r in d["refused"] if r.startswith("finding 2 ")]
assert len(lines) == 1 and "changed" in lines[0] and "#%d" % succ in lines[0] and "train.py:5" in lines[0], d["refused"]
assert d["superseded"] == [{"finding": 2, "by": succ}], d.get("superseded")
PY
grep -q "cuda()" "$p/train.py" && ok "the successor was not fixed in #2's place" || fail "#$succ was fixed although #2 was asked for"
grep -q "torch.npu.synchronize" "$p/train.py" && ok "#1 was fixed" || fail "#1 was not fixed"

# text output: the same line on stderr
q="$work/q"
stale_project "$q"
expect_exit 0 "text: fix --finding 2 1 applies #1" -- "$FERRY" -C "$q" fix --finding 2 1 --yes
expect_grep "refused: finding 2 (train.py:5): .*changed.*#$succ reports train.py:5 now; fix #$succ" "$work/err" \
	"text: stderr names #2's successor"

# only the stale finding asked for: nothing to apply, refused by the engagement's state
r="$work/r"
stale_project "$r"
expect_exit 1 "fix --finding 2 alone is refused" -- "$FERRY" -C "$r" fix --finding 2 --yes
one_line "$work/err" "in one line"
succ=$(id_at "$r" adapt.device_calls open)
expect_grep "finding 2 .*changed.*#$succ reports train.py:5 now; fix #$succ" "$work/err" "naming the successor"
grep -q "cuda()" "$r/train.py" && ok "and nothing was changed" || fail "the stale fix changed train.py"

# asked for again: #2 is closed now, and the place is still reported by its successor
expect_exit 1 "fix --finding 2 again is refused" -- "$FERRY" -C "$r" fix --finding 2 --yes
expect_grep "finding 2 .*is fixed, only open findings can be fixed; #$succ reports train.py:5 now" "$work/err" \
	"naming what reports its place now"

# ids the engagement does not hold, and ids that are not open
expect_exit 3 "fix --finding 99: no such finding (exit 3, as waive 99)" -- "$FERRY" -C "$r" fix --finding 99 --yes
one_line "$work/err" "in one line"
expect_grep "finding 99: no such finding" "$work/err" "saying so as waive does"
expect_exit 3 "fix --finding 1 99: exit 3 before anything is fixed" -- "$FERRY" -C "$r" fix --finding 1 99 --yes
grep -q "torch.cuda.synchronize" "$r/train.py" && ok "and #1 was left alone" || fail "#1 was fixed despite #99"
"$FERRY" -C "$r" waive 1 --reason "kept on purpose" >/dev/null 2>&1 || fail "waive 1"
expect_exit 1 "fix --finding 1 (waived) is refused" -- "$FERRY" -C "$r" fix --finding 1 --yes
one_line "$work/err" "in one line"
expect_grep "finding 1 .*is waived, only open findings can be fixed" "$work/err" "saying it is waived"
expect_exit 0 "fix --finding 1 3: #3 applies, #1 refused" -- "$FERRY" -C "$r" fix --finding 1 3 --yes
expect_grep "refused: finding 1 .*is waived" "$work/err" "the waived #1 is named, not dropped"
expect_exit 1 "fix --finding 3 (now fixed) is refused" -- "$FERRY" -C "$r" fix --finding 3 --yes
expect_grep "finding 3 .*is fixed, only open findings can be fixed" "$work/err" "saying it is fixed"

# an open finding that has no automatic fix, named alone: refused as the others are, exit 1
"$FERRY" -C "$r" check --phase assess >/dev/null 2>&1
manual=$("$FERRY" -C "$r" findings --format json | python3 -c '
import json, sys
print(next(f["id"] for f in json.load(sys.stdin)["findings"] if f["status"] == "open" and not f["fixable"]))')
expect_exit 1 "fix --finding $manual (no automatic fix) is refused" -- "$FERRY" -C "$r" fix --finding "$manual" --yes
one_line "$work/err" "in one line"
expect_grep "finding $manual .*no automatic fix exists for it" "$work/err" "saying there is no automatic fix"

finish
