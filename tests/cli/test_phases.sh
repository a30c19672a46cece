#!/bin/sh
# Phases are data (plugins/data/phases.json): the record's phases table is filled from the
# table in its order (also for an older record that lacks a phase), the command help, man
# page and completion list them from it, and a plugin naming another phase is refused with
# the list.
. "$(dirname "$0")/lib.sh"

names=$(python3 -c 'import json; print(" ".join(e["name"] for e in json.load(open("plugins/data/phases.json"))["entries"]))')
[ "$names" = "assess design environment adapt tune infer-convert infer-optimize" ] &&
	ok "phases.json lists the seven phases in order" || fail "phases.json: $names"

p="$work/p"
make_project "$p"
"$FERRY" init "$p" >/dev/null
db="$p/.ferry/engagement.db"
got=$(python3 -c 'import sqlite3,sys; print(" ".join(r[0] for r in sqlite3.connect(sys.argv[1]).execute("SELECT name FROM phases ORDER BY ord")))' "$db")
[ "$got" = "$names" ] && ok "a new record's phases come from phases.json, in its order" || fail "phases table: $got"

# an older record without the last phase gets it back when opened
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("DELETE FROM phases WHERE name = ?", ("infer-optimize",)); c.commit()' "$db"
expect_exit 0 "status opens a record that lacks a phase" -- "$FERRY" -C "$p" status
expect_grep "^infer-optimize " "$work/out" "the missing phase is listed again"
got=$(python3 -c 'import sqlite3,sys; print(" ".join(r[0] for r in sqlite3.connect(sys.argv[1]).execute("SELECT name FROM phases ORDER BY ord")))' "$db")
[ "$got" = "$names" ] && ok "the record's phases table is complete again" || fail "phases table after: $got"

"$FERRY" help --man >"$work/man" 2>&1
expect_grep "assess, design, environment, adapt, tune, infer-convert, infer-optimize" "$work/man" "the man page lists the phases"
"$FERRY" completion bash >"$work/comp" 2>&1
expect_grep "infer-optimize" "$work/comp" "bash completion offers the phases"

mkdir -p "$p/.ferry/plugins/assess"
cat >"$p/.ferry/plugins/assess/deploy.lua" <<'LUA'
return {
	id = "assess.deploy_check", phase = "deploy", title = "a check of a phase that does not exist",
	severity = "warning",
	run = function(ctx) end,
}
LUA
"$FERRY" -C "$p" plugins >"$work/out" 2>"$work/err"
expect_grep "phase: 'deploy' is not a phase (assess, design, environment, adapt, tune, infer-convert, infer-optimize)" \
	"$work/err" "a plugin of another phase is refused, with the phases named"
finish
