#!/bin/sh
# The engagement record stays out of the client's own git: .ferry/ holds a .gitignore of
# "*", so `git status` in the project does not list it and `git add -A` cannot commit it;
# an engagement without one (made by an older ferry) gets it on its next writing command.
. "$(dirname "$0")/lib.sh"
p="$work/proj"
make_project "$p"
git -C "$p" init -q && git -C "$p" add -A && git -C "$p" -c user.name=c -c user.email=c@example.invalid commit -qm client
"$FERRY" init "$p" >/dev/null 2>&1 || fail "init"
[ -z "$(git -C "$p" status --porcelain)" ] && ok "after init the client's git status is clean" || fail "git status lists: $(git -C "$p" status --porcelain)"
git -C "$p" add -A
[ -z "$(git -C "$p" diff --cached --name-only)" ] && ok "git add -A stages nothing of .ferry/" || fail "git add -A staged: $(git -C "$p" diff --cached --name-only | head -3)"
rm "$p/.ferry/.gitignore"
"$FERRY" -C "$p" check --phase assess >/dev/null 2>&1
[ -f "$p/.ferry/.gitignore" ] && [ -z "$(git -C "$p" status --porcelain)" ] && ok "an engagement without the .gitignore gets it back" || fail "the .gitignore was not restored"
"$FERRY" -C "$p" diff baseline >"$work/diff" 2>&1
grep -q "gitignore" "$work/diff" && fail "the .gitignore shows in ferry's own diff" || ok "and it is not part of the project's history"
finish
