#!/bin/sh
# Nothing a person does is lost or mislabelled: a file saved while `ferry fix` runs is
# never overwritten; a refused or killed edit leaves no journal that later claims the
# user's own edits; leftover temporary files are swept; a damaged record is refused;
# fix asks before changing files, and off a terminal it must be told (--yes/--dry-run).
. "$(dirname "$0")/lib.sh"

newest_kind() { sqlite3 "$1/.ferry/engagement.db" 'SELECT kind FROM checkpoints ORDER BY id DESC LIMIT 1'; }
newest_message() { sqlite3 "$1/.ferry/engagement.db" 'SELECT message FROM checkpoints ORDER BY id DESC LIMIT 1'; }
count_cps() { sqlite3 "$1/.ferry/engagement.db" 'SELECT count(*) FROM checkpoints'; }
fresh() { rm -rf "$1"; make_project "$1"; "$FERRY" init "$1" >/dev/null && "$FERRY" -C "$1" check >/dev/null 2>&1; }
# run_paused DIR ARGS...: runs ferry with the write pause hook in the background ($pid)
# and waits until it stands before its first write into the project ($paused: the path).
fifo="$work/pause"
mkfifo "$fifo"
run_paused() {
	d=$1
	shift
	FERRY_TEST_PAUSE="$fifo" "$FERRY" -C "$d" "$@" >"$work/out" 2>"$work/err" &
	pid=$!
	paused=$(timeout 30 sh -c "read -r line <'$fifo' && echo \"\$line\"")
}
resume() { timeout 30 sh -c ": >'$fifo'"; }

p="$work/proj"
fresh "$p"

# --- fix off a terminal ---
before=$(sha256sum "$p/train.py")
expect_exit 2 "fix without --yes off a terminal is refused (exit 2)" -- "$FERRY" -C "$p" fix --all --phase adapt </dev/null
expect_grep "add --yes .* or --dry-run" "$work/err" "the refusal says to add --yes or --dry-run"
one_line "$work/err" "the refusal is one line"
[ "$before" = "$(sha256sum "$p/train.py")" ] && ok "nothing was changed" || fail "fix changed files without --yes"
expect_exit 0 "fix --dry-run off a terminal shows the plan" -- "$FERRY" -C "$p" fix --all --phase adapt --dry-run </dev/null
expect_grep "^+.*npu" "$work/out" "the dry run prints the diff"

# --- fix --all with an open ferry.source warning ---
printf 'import torch\ndef broken(:\n    return torch.zeros(1).cuda()\n' >"$p/broken.py"
"$FERRY" -C "$p" check >/dev/null 2>&1
[ "$(sqlite3 "$p/.ferry/engagement.db" "SELECT count(*) FROM findings WHERE plugin='ferry.source' AND status='open'")" -gt 0 ] &&
	ok "a ferry.source warning is open" || fail "no ferry.source warning to test with"
expect_exit 0 "fix --all --yes without --phase works with a source warning open" -- "$FERRY" -C "$p" fix --all --yes
grep -q 'npu' "$p/train.py" && ok "fix --all applied the fixes" || fail "fix --all applied nothing"

# --- a save during fix is never overwritten ---
fresh "$p"
run_paused "$p" fix --plugin adapt.device_calls --yes
[ "$paused" = train.py ] && ok "fix paused before writing train.py" || fail "fix did not pause at train.py (got '$paused')"
printf '# saved in the editor while ferry ran\n' >>"$p/train.py"
cp "$p/train.py" "$work/saved.py"
resume
wait $pid
got=$?
[ $got -eq 1 ] && ok "the fix is refused (exit 1) when the file changed under it" || fail "fix exit $got, wanted 1"
expect_grep "train.py: changed since ferry read it" "$work/err" "the refusal names the file and why"
cmp -s "$p/train.py" "$work/saved.py" && ok "the editor's save is intact" || fail "the editor's save was overwritten"
[ -f "$p/.ferry/pending.json" ] && fail "the refused fix left its journal" || ok "the refused fix left no journal"
"$FERRY" -C "$p" status >/dev/null 2>&1
[ "$(newest_kind "$p")" = manual ] && ok "the save is recorded as a manual edit, not as the fix" ||
	fail "the save was recorded as '$(newest_kind "$p")': $(newest_message "$p")"
expect_exit 0 "verify passes" -- "$FERRY" -C "$p" verify

# --- a save while fix asks on the terminal is never overwritten ---
fresh "$p"
if python3 - "$FERRY" "$p" >"$work/pty.out" 2>&1 <<'PY'; then ok "a save made while fix asks is kept (refused, exit 1)"; else fail "a save made while fix asks"; sed 's/^/     | /' "$work/pty.out" | tail -5; fi
import os, pty, sys, time
ferry, proj = sys.argv[1], sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    os.execv(ferry, [ferry, "-C", proj, "fix", "--plugin", "adapt.device_calls"])
out = b""
deadline = time.time() + 60
while b"[y/N]" not in out and time.time() < deadline:
    try:
        out += os.read(fd, 4096)
    except OSError:
        break
if b"[y/N]" not in out:
    sys.exit("no question asked: %r" % out[-300:])
with open(os.path.join(proj, "train.py"), "a") as f:   # the editor saves now
    f.write("# saved while ferry asked\n")
os.write(fd, b"y\n")
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
_, status = os.waitpid(pid, 0)
text = open(os.path.join(proj, "train.py")).read()
if os.waitstatus_to_exitcode(status) != 1 or "# saved while ferry asked" not in text or ".npu()" in text:
    sys.exit("exit %d, file now: %r, output %r" % (os.waitstatus_to_exitcode(status), text, out[-300:]))
if b"changed since ferry read it" not in out:
    sys.exit("no refusal naming the file: %r" % out[-300:])
PY

# --- a kill at the first write: the user's edits are not claimed by the dead fix ---
fresh "$p"
n0=$(count_cps "$p")
run_paused "$p" fix --plugin adapt.device_calls --yes
printf '# the user edits another file meanwhile\n' >>"$p/models/net.py"
kill -9 $pid
wait $pid 2>/dev/null
[ -f "$p/.ferry/pending.json" ] && ok "the killed fix left its journal" || fail "no journal after the kill"
"$FERRY" -C "$p" status >/dev/null 2>&1
[ "$(newest_kind "$p")" = manual ] && ok "after the kill the user's edit is a manual edit" ||
	fail "after the kill the user's edit was recorded as '$(newest_kind "$p")': $(newest_message "$p")"
[ "$(count_cps "$p")" -eq $((n0 + 1)) ] && ok "exactly one checkpoint: the manual edit" || fail "$(count_cps "$p") checkpoints, wanted $((n0 + 1))"
[ -f "$p/.ferry/pending.json" ] && fail "the journal is still there" || ok "the journal is cleared"

# --- a kill after the first write of the fix: that file keeps the fix's name ---
fresh "$p"
printf 'import torch\nx = torch.zeros(1).cuda()\n' >"$p/models/gpu.py"
"$FERRY" -C "$p" check >/dev/null 2>&1
run_paused "$p" fix --plugin adapt.device_calls --yes
first=$paused
resume
paused=$(timeout 30 sh -c "read -r line <'$fifo' && echo \"\$line\"")
printf '# the user edits a third file meanwhile\n' >>"$p/README.md"
kill -9 $pid
wait $pid 2>/dev/null
"$FERRY" -C "$p" status >/dev/null 2>&1
kinds=$(sqlite3 "$p/.ferry/engagement.db" 'SELECT kind FROM checkpoints ORDER BY id DESC LIMIT 2' | tr '\n' ' ')
[ "$kinds" = "manual recovered " ] && ok "the written file ($first) is recovered under the fix's name, the user's edit is manual" ||
	fail "checkpoints after a kill mid-fix: $kinds"
files=$(git --git-dir="$p/.ferry/history.git" show --name-only --format= HEAD~1 | tr '\n' ' ')
[ "$files" = "$first " ] && ok "the recovered checkpoint holds only the file the fix wrote" || fail "recovered checkpoint holds: $files"

# --- a refused revert leaves no journal that claims the next edit ---
fresh "$p"
"$FERRY" -C "$p" fix --plugin adapt.device_calls --yes >/dev/null 2>&1
cp=$(sqlite3 "$p/.ferry/engagement.db" "SELECT id FROM checkpoints WHERE kind='fix' ORDER BY id DESC LIMIT 1")
expect_exit 0 "revert of the fix" -- "$FERRY" -C "$p" revert "$cp"
expect_exit 1 "reverting it again is refused" -- "$FERRY" -C "$p" revert "$cp"
[ -f "$p/.ferry/pending.json" ] && fail "the refused revert left .ferry/pending.json" || ok "the refused revert left no journal"
printf '# my own unrelated edit\n' >>"$p/models/net.py"
"$FERRY" -C "$p" status >/dev/null 2>&1
[ "$(newest_kind "$p")" = manual ] && ok "the next edit is a manual edit" ||
	fail "the next edit was recorded as '$(newest_kind "$p")': $(newest_message "$p")"

# --- leftovers of interrupted atomic writes are swept ---
n0=$(count_cps "$p")
printf 'half' >"$p/train.py.ferry-tmp.4242"
printf 'half' >"$p/models/net.py.ferry-tmp.17"
printf '{}' >"$p/.ferry/pending.json.ferry-tmp.99"
printf 'keep' >"$p/notes.ferry-tmp.txt"
git --git-dir="$p/.ferry/history.git" --work-tree="$p" add -f notes.ferry-tmp.txt 2>/dev/null
"$FERRY" -C "$p" status >/dev/null 2>&1
left=$(find "$p" -name '*.ferry-tmp.[0-9]*' | wc -l)
[ "$left" -eq 0 ] && ok "leftover temporary files are removed by the next command" || fail "$left leftover temporary files remain"
[ -f "$p/notes.ferry-tmp.txt" ] && ok "a user's file that only looks similar stays" || fail "a user's file was removed"

# --- an empty, truncated or missing record is refused, never re-created ---
fresh "$p"
cp "$p/.ferry/engagement.db" "$work/db"
: >"$p/.ferry/engagement.db"
expect_exit 3 "an empty engagement.db is refused (exit 3)" -- "$FERRY" -C "$p" status
expect_grep "engagement.db: the engagement record is gone" "$work/err" "the refusal says the record is gone"
one_line "$work/err" "the refusal is one line"
[ ! -s "$p/.ferry/engagement.db" ] && ok "the empty record was not re-initialised" || fail "a fresh record was created"
expect_exit 1 "verify reports an empty record (exit 1)" -- "$FERRY" -C "$p" verify
expect_grep "record is gone" "$work/err" "verify says the record is gone"
head -c 8192 "$work/db" >"$p/.ferry/engagement.db"
expect_exit 3 "a truncated engagement.db is refused (exit 3)" -- "$FERRY" -C "$p" log
expect_grep "truncated" "$work/err" "the refusal says it is truncated"
expect_exit 1 "verify reports a truncated record (exit 1)" -- "$FERRY" -C "$p" verify
rm "$p/.ferry/engagement.db"
expect_exit 3 "a missing engagement.db is refused (exit 3)" -- "$FERRY" -C "$p" check
expect_grep "record is gone" "$work/err" "the refusal says the record is gone"
[ ! -e "$p/.ferry/engagement.db" ] && ok "no new record was created" || fail "a new record was created"
cp "$work/db" "$p/.ferry/engagement.db"
expect_exit 0 "the restored record verifies" -- "$FERRY" -C "$p" verify

finish
