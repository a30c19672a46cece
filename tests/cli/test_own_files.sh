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

finish
