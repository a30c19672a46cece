#!/bin/sh
# ferry init: a plain folder, a git repository with uncommitted changes, refusal of a
# second init, and bad input that must name the file and change nothing.
. "$(dirname "$0")/lib.sh"

p="$work/plain"
make_project "$p"
before=$(tree_hash "$p")
expect_exit 0 "init on a plain folder" -- "$FERRY" init "$p" --client "Acme Corp"
expect_grep "baseline" "$work/out" "init reports the baseline"
[ -f "$p/.ferry/engagement.db" ] && [ -d "$p/.ferry/history.git" ] && ok "workspace created" || fail "workspace created"
[ "$(tree_hash "$p")" = "$before" ] && ok "init leaves project files unchanged" || fail "init changed project files"
git --git-dir="$p/.ferry/history.git" ls-tree -r --name-only HEAD >"$work/tree"
expect_grep "^train.py$" "$work/tree" "baseline holds train.py"
expect_grep "^models/net.py$" "$work/tree" "baseline holds nested files"
if grep -q "checkpoints/" "$work/tree"; then fail "baseline honours .gitignore"; else ok "baseline honours .gitignore"; fi
if grep -q "^.ferry" "$work/tree"; then fail "baseline excludes .ferry/"; else ok "baseline excludes .ferry/"; fi
git --git-dir="$p/.ferry/history.git" show HEAD:models/net.py | od -c | grep -q '\\r' && ok "CRLF kept byte-exact in baseline" || fail "CRLF kept in baseline"

dbsum=$(sha256sum "$p/.ferry/engagement.db" | cut -c1-64)
expect_exit 3 "second init refused" -- "$FERRY" init "$p"
one_line "$work/err" "second init: one line"
expect_grep "already exists" "$work/err" "second init says why"
[ "$(sha256sum "$p/.ferry/engagement.db" | cut -c1-64)" = "$dbsum" ] && ok "second init changed nothing" || fail "second init changed the database"

expect_exit 0 "status after init" -- "$FERRY" -C "$p" status --json
python3 - "$work/out" <<'PY' && ok "status --json fields" || fail "status --json fields"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["engagement"]["client"] == "Acme Corp"
assert [p["name"] for p in s["phases"]] == ["assess", "design", "environment", "adapt", "tune", "infer-convert", "infer-optimize"]
assert all(p["status"] == "not started" for p in s["phases"])
assert s["head"]["kind"] == "baseline" and len(s["head"]["commit"]) == 40
assert s["actor"] == "Test Runner <test@example.org>"
assert s["findings"]["open"] == 0
PY

# a client repository with its own history and uncommitted work
g="$work/client"
make_project "$g"
(cd "$g" && git init -q && git add -A && git -c user.name=c -c user.email=c@x commit -qm init && echo "# wip" >>train.py && echo new >untracked.txt)
gitsum=$(cd "$g/.git" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum)
expect_exit 0 "init on a git repository with uncommitted changes" -- "$FERRY" init "$g"
after=$(cd "$g/.git" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum)
[ "$gitsum" = "$after" ] && ok "client .git untouched" || fail "client .git changed"
(cd "$g" && git status --porcelain) >"$work/st"
expect_grep "untracked.txt" "$work/st" "client still sees its own uncommitted work"
git --git-dir="$g/.ferry/history.git" show HEAD:train.py | grep -q "# wip" && ok "baseline is the code as received (with uncommitted edits)" || fail "baseline misses uncommitted edits"

# settings: values are checked before anything is written
expect_exit 0 "config strategy auto" -- "$FERRY" -C "$p" config strategy auto
expect_exit 2 "config strategy with an unknown word" -- "$FERRY" -C "$p" config strategy sometimes
one_line "$work/err" "bad setting: one line"
expect_grep "auto tool manual" "$work/err" "bad setting names the allowed words"
expect_exit 2 "config target.cards 0" -- "$FERRY" -C "$p" config target.cards 0
expect_exit 0 "config tolerance.loss as a percentage" -- "$FERRY" -C "$p" config tolerance.loss 2%
expect_exit 2 "config of an unknown key" -- "$FERRY" -C "$p" config colour blue
[ "$("$FERRY" -C "$p" config strategy)" = auto ] && ok "a refused value leaves the setting as it was" || fail "refused value changed the setting"

# bad input: one line naming the file, exit 3, nothing created
expect_exit 3 "missing folder" -- "$FERRY" init "$work/nope"
one_line "$work/err" "missing folder: one line"
expect_grep "$work/nope" "$work/err" "missing folder is named"
[ ! -e "$work/nope" ] && ok "missing folder not created" || fail "missing folder created"
echo x >"$work/afile"
expect_exit 3 "a file instead of a folder" -- "$FERRY" init "$work/afile"
expect_grep "not a directory" "$work/err" "file: says not a directory"
expect_exit 3 "status outside an engagement" -- "$FERRY" -C "$work" status
expect_grep "ferry init" "$work/err" "outside an engagement: suggests init"
expect_exit 2 "unknown command is a usage error" -- "$FERRY" frobnicate
expect_exit 2 "bad option is a usage error" -- "$FERRY" -C "$p" status --frob

# a database from a newer ferry
nw="$work/newer"
make_project "$nw"
"$FERRY" init "$nw" >/dev/null 2>&1
sqlite3 "$nw/.ferry/engagement.db" "PRAGMA user_version = 999"
sum=$(sha256sum "$nw/.ferry/engagement.db" | cut -c1-64)
expect_exit 3 "newer schema refused" -- "$FERRY" -C "$nw" status
one_line "$work/err" "newer schema: one line"
expect_grep "engagement.db" "$work/err" "newer schema names the database"
expect_grep "newer" "$work/err" "newer schema says why"
[ "$(sha256sum "$nw/.ferry/engagement.db" | cut -c1-64)" = "$sum" ] && ok "newer schema: database unchanged" || fail "newer schema: database changed"

# a corrupt database
c="$work/corrupt"
make_project "$c"
"$FERRY" init "$c" >/dev/null 2>&1
rm -f "$c/.ferry/engagement.db-wal" "$c/.ferry/engagement.db-shm"
head -c 4096 /dev/urandom >"$c/.ferry/engagement.db"
expect_exit 3 "corrupt database" -- "$FERRY" -C "$c" status
one_line "$work/err" "corrupt database: one line"
expect_grep "engagement.db" "$work/err" "corrupt database is named"

# a damaged history
h="$work/damaged"
make_project "$h"
"$FERRY" init "$h" >/dev/null 2>&1
rm -rf "$h/.ferry/history.git/objects"
expect_exit 3 "damaged history" -- "$FERRY" -C "$h" status
one_line "$work/err" "damaged history: one line"
expect_grep "history.git" "$work/err" "damaged history is named"

finish
