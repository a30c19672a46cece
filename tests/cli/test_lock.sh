#!/bin/sh
# The workspace lock: concurrent writers serialize and never corrupt the record; a
# writer that cannot get the lock in time fails with one clear line.
. "$(dirname "$0")/lib.sh"

p="$work/proj"
make_project "$p"
"$FERRY" init "$p" >/dev/null

# eight writers at once: all succeed, every event is recorded, the chain is intact. They
# wait for the lock as long as they need (not the 10 s default a person gets): what is
# tested is that they take turns, and eight sanitized writers on a loaded machine can
# take longer than 10 s in all
i=0
while [ $i -lt 8 ]; do
	FERRY_LOCK_WAIT_MS=300000 "$FERRY" -C "$p" config target.cards "$((i + 1))" >"$work/w$i.out" 2>&1 &
	i=$((i + 1))
done
wait
bad=$(cat "$work"/w*.out | wc -l)
[ "$bad" -eq 0 ] && ok "eight concurrent writers all succeed" || { fail "concurrent writers"; cat "$work"/w*.out | head -5; }
n=$(sqlite3 "$p/.ferry/engagement.db" "SELECT count(*) FROM audit WHERE payload LIKE '%\"kind\":\"config\"%'")
[ "$n" -eq 8 ] && ok "all eight events recorded" || fail "recorded $n config events"
expect_exit 0 "chain intact after concurrent writers" -- "$FERRY" -C "$p" verify

# a held lock: the loser waits, then fails clearly
flock "$p/.ferry/lock" sleep 5 &
holder=$!
sleep 0.3
FERRY_LOCK_WAIT_MS=300 "$FERRY" -C "$p" config target.cards 9 >"$work/out" 2>"$work/err"
rc=$?
[ $rc -eq 3 ] && ok "a blocked writer exits 3" || fail "blocked writer exit $rc"
one_line "$work/err" "blocked writer: one line"
expect_grep "another ferry process" "$work/err" "blocked writer says why"
kill $holder 2>/dev/null
wait $holder 2>/dev/null
[ "$("$FERRY" -C "$p" config target.cards)" != 9 ] && ok "the blocked write changed nothing" || fail "blocked write applied"

finish
