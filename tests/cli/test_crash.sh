#!/bin/sh
# Crash safety: a loop of edits and checkpoint writes is killed with SIGKILL at random
# moments, many times. Afterwards the record verifies, history.git passes git fsck,
# the database passes integrity_check, and no edit made before a kill is lost.
. "$(dirname "$0")/lib.sh"

p="$work/proj"
make_project "$p"
"$FERRY" init "$p" >/dev/null
rounds=${CRASH_ROUNDS:-40}
r=0
while [ $r -lt $rounds ]; do
	# each round appends a numbered line (the "edit") and lets ferry checkpoint it
	echo "step_$r = $r" >>"$p/train.py"
	"$FERRY" -C "$p" status >/dev/null 2>&1 &
	pid=$!
	# kill at a random moment between 0 and ~40 ms
	sleep "0.0$(awk -v s=$r 'BEGIN{srand(s); printf "%02d", int(rand()*40)}')"
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	r=$((r + 1))
done
# the next ordinary command recovers and records whatever was pending
expect_exit 0 "a command after the crashes succeeds" -- "$FERRY" -C "$p" status
expect_exit 0 "verify passes after $rounds kills" -- "$FERRY" -C "$p" verify
git --git-dir="$p/.ferry/history.git" fsck --strict >"$work/fsck" 2>&1 && ok "git fsck clean" || { fail "git fsck"; head -5 "$work/fsck"; }
[ "$(sqlite3 "$p/.ferry/engagement.db" 'PRAGMA integrity_check')" = ok ] && ok "integrity_check ok" || fail "integrity_check"
last=$((rounds - 1))
git --git-dir="$p/.ferry/history.git" show HEAD:train.py | grep -q "^step_$last = $last$" && ok "the last edit is in the history" || fail "last edit lost from history"
r=0
lost=0
while [ $r -lt $rounds ]; do
	grep -q "^step_$r = $r$" "$p/train.py" || lost=$((lost + 1))
	r=$((r + 1))
done
[ $lost -eq 0 ] && ok "no edit lost from the work tree" || fail "$lost edits lost"
n=$(git --git-dir="$p/.ferry/history.git" rev-list --count HEAD)
m=$(sqlite3 "$p/.ferry/engagement.db" 'SELECT count(*) FROM checkpoints')
[ "$n" -eq "$m" ] && ok "every commit is a recorded checkpoint ($n)" || fail "commits $n vs checkpoints $m"

finish
