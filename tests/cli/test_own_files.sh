#!/bin/sh
# Nothing ferry writes for itself lands in the client's project: reports without
# --output go to standard output, screen dumps and reports named in the workbench go
# under .ferry/, so no later command records them as a "manual edit" checkpoint that
# would ship in an export.
. "$(dirname "$0")/lib.sh"

p="$work/proj"
make_project "$p"
"$FERRY" init "$p" >/dev/null 2>&1 || fail "init"
before=$(tree_hash "$p")
(cd "$p" && "$FERRY" check >/dev/null 2>&1)
for f in md html json csv sarif; do
	(cd "$p" && "$FERRY" report --format "$f" >/dev/null 2>&1) || fail "report --format $f"
done
(cd "$p" && "$FERRY" report --format csv --section changes --excel >/dev/null 2>&1)
# the workbench, headless: a screen dump and a report named without .ferry/
(cd "$p" && FERRY_HEADLESS=100x30 FERRY_KEYS=":save-screen shot.txt<Enter>:report md notes.md<Enter>q" "$FERRY" . >/dev/null 2>&1)
[ "$(tree_hash "$p")" = "$before" ] && ok "the project tree is byte-identical after reports and a screen dump" \
	|| { fail "files appeared in the project"; (cd "$p" && find . -path ./.ferry -prune -o -type f -newer .gitignore -print | head -5); }
[ -s "$p/.ferry/screens/shot.txt" ] && ok "the screen dump is under .ferry/screens/" || fail "no screen dump under .ferry/screens/"
[ -s "$p/.ferry/artifacts/reports/notes.md" ] && ok "the workbench report is under .ferry/artifacts/reports/" \
	|| fail "no report under .ferry/artifacts/reports/"
expect_exit 0 "log" -- "$FERRY" -C "$p" log --json
python3 -c "import json,sys; k=[c['kind'] for c in json.load(open(sys.argv[1]))['checkpoints']]; assert 'manual' not in k, k" "$work/out" \
	&& ok "no manual-edit checkpoint was recorded" || fail "a manual-edit checkpoint was recorded"

# a file named inside the project (outside .ferry/) is refused before anything is written:
# the next sync would record it as a hand edit that ships in the export, and it could
# overwrite a client file
for cmd in "report --format md" "check" "compare loss $top/tests/fixtures/loss/gpu_plain.log $top/tests/fixtures/loss/npu_plain.log"; do
	name=${cmd%% *}
	expect_exit 2 "$name --output inside the project is refused" -- sh -c "cd '$p' && '$FERRY' $cmd --output out-$name.txt"
	one_line "$work/err" "$name: the refusal is one line"
	expect_grep "inside the project" "$work/err" "$name: the refusal says why"
	[ ! -e "$p/out-$name.txt" ] && ok "$name: nothing was written" || fail "$name: the file was written"
done
printf 'keep me\n' >"$p/NOTES.md"
expect_exit 2 "a client file is not overwritten by a report" -- "$FERRY" -C "$p" report --format md --output "$p/NOTES.md"
grep -qx 'keep me' "$p/NOTES.md" && ok "the client file is intact" || fail "the client file was overwritten"
rm "$p/NOTES.md"
expect_exit 0 "report --output under .ferry/ is written" -- "$FERRY" -C "$p" report --format md --output "$p/.ferry/r.md"
expect_exit 0 "report --output outside the project is written" -- "$FERRY" -C "$p" report --format md --output "$work/r.md"

# Python's bytecode caches are never part of the record: a run of the client's code
# writes them, nothing in them is the client's work; an engagement begun by an older
# ferry (whose rules lack them) gets the rules at its next command
grep -v 'pycache\|py\[cod\]\|bytecode' "$p/.ferry/history.git/info/exclude" >"$work/exclude"
cp "$work/exclude" "$p/.ferry/history.git/info/exclude"
mkdir -p "$p/pkg"
printf 'def f():\n    return 1\n' >"$p/pkg/helper.py"
"$FERRY" -C "$p" check >/dev/null 2>&1
python3 -m py_compile "$p/pkg/helper.py" "$p/train.py"
printf 'x' >"$p/pkg/stale.pyc"
"$FERRY" -C "$p" check >/dev/null 2>&1
git --git-dir="$p/.ferry/history.git" ls-tree -r --name-only HEAD >"$work/tree"
grep -q 'pkg/helper.py' "$work/tree" && ok "the new source file is recorded" || fail "pkg/helper.py not recorded"
grep -q '__pycache__\|\.pyc$' "$work/tree" && fail "bytecode entered the record: $(grep -c 'pyc' "$work/tree")" \
	|| ok "no __pycache__ or .pyc in the record"

finish
