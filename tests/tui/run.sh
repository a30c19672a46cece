#!/bin/sh
# End-to-end workbench tests in a private tmux server (tmux -L, -f /dev/null):
# start ./ferry on a copy of a project, send keys, poll capture-pane until the
# expected text appears or a timeout passes. Covers: the init offer, running
# checks, moving through phases, a finding's detail, the timeline and a diff,
# Chinese, resizing below and above the minimum, quitting and SIGTERM with the
# terminal restored, NO_COLOR on a monochrome terminal. Prints "ok"/"FAIL"
# lines; the exit status is the failure count. Skipped (exit 0) only when tmux
# is not installed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
FERRY="${FERRY:-$top/ferry}"
if ! command -v tmux >/dev/null 2>&1; then
	echo "tui end-to-end: tmux is not installed; skipped"
	exit 0
fi
[ -x "$FERRY" ] || { echo "FAIL $FERRY is not built"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ferry-tui-XXXXXX")
sock="ferrytest-$$"
tm() { tmux -L "$sock" -f /dev/null "$@"; }
trap 'tm kill-server >/dev/null 2>&1; rm -rf "$work"' EXIT
fails=0
ok() { echo "ok   $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# wait_for SESSION TEXT [SECONDS]: 0 when TEXT appears on the pane in time.
wait_for() {
	i=0
	limit=$(( ${3:-10} * 5 ))
	while [ "$i" -lt "$limit" ]; do
		tm has-session -t "$1" 2>/dev/null || return 1
		if tm capture-pane -p -t "$1" 2>/dev/null | grep -F -q -- "$2"; then
			return 0
		fi
		sleep 0.2
		i=$((i + 1))
	done
	return 1
}

# expect SESSION TEXT DESC [SECONDS]
expect() {
	if wait_for "$1" "$2" "${4:-10}"; then
		ok "$3"
	else
		fail "$3: \"$2\" did not appear; the screen was:"
		tm capture-pane -p -t "$1" 2>/dev/null | grep -v '^$' | sed 's/^/     | /'
	fi
}

# the project: the bundled example when there is one, else a tiny fixture
proj="$work/proj"
if [ -d "$top/examples/resnet-ddp" ]; then
	cp -R "$top/examples/resnet-ddp" "$proj"
	rm -rf "$proj/.ferry"
else
	mkdir -p "$proj"
	cat >"$proj/train.py" <<'PY'
import torch
import torch.distributed as dist

def main():
    model = Net().cuda()
    dist.init_process_group(backend='nccl')
    torch.cuda.synchronize()
PY
fi

# launch.sh NAME: runs ferry on the pane's terminal, records its pid, then prints
# its exit status and stays so the pane can be inspected.
cat >"$work/launch.sh" <<SH
#!/bin/sh
export FERRY_ACTOR='TUI Tester <tui@example.org>' LANG=C.UTF-8 LC_ALL=C.UTF-8
"$FERRY" "$proj" </dev/tty &
echo \$! >"$work/\$1.pid"
wait \$!
echo FERRY-EXIT=\$?
sleep 60
SH

# start SESSION LANG COLS ROWS [VAR=VALUE...]
start() {
	name=$1 lang=$2 cols=$3 rows=$4
	shift 4
	tm new-session -d -s "$name" -x "$cols" -y "$rows" env FERRY_LANG="$lang" "$@" sh "$work/launch.sh" "$name"
}

start main en 100 30
expect main "There is no engagement in" "offers to start an engagement in a fresh project"
tm send-keys -t main y
expect main "No checks have run for this phase yet" "the engagement was created and the workbench opened"
if [ -d "$proj/.ferry" ]; then ok ".ferry/ exists"; else fail ".ferry/ was not created"; fi

tm send-keys -t main r
expect main "run 1:" "r runs the phase's checks and reports the run" 60
expect main "Findings · assess" "the findings list shows the assess phase"

tm send-keys -t main l
expect main "Findings · design" "l moves to the next phase"
tm send-keys -t main 4
expect main "Findings · adapt" "4 selects the adapt phase"
tm send-keys -t main 1 j Enter
expect main "Proposed fix" "Enter opens the finding's detail with the proposed fix"
tm send-keys -t main Escape

tm send-keys -t main t
expect main "Checkpoint timeline, newest first" "t shows the checkpoint timeline"
expect main "baseline" "the baseline checkpoint is listed"
tm send-keys -t main Enter
expect main "Diff of checkpoint #1" "Enter shows a checkpoint's diff"
tm send-keys -t main Escape Escape

tm send-keys -t main g
expect main "Checklist (ticked from check results)" "g shows the phase guide"
tm send-keys -t main '?'
expect main "ferry workbench keys" "? shows the help overlay"
tm send-keys -t main Escape f

tm resize-window -t main -x 70 -y 20
expect main "ferry needs a window of at least 80x24" "a window below 80x24 asks to be enlarged"
tm resize-window -t main -x 120 -y 40
expect main "Findings · assess" "growing the window again restores the workbench"

tm send-keys -t main : 'lang zh' Enter
expect main "界面语言：简体中文" "the palette switches the interface to Chinese"
expect main "阶段" "the rail is titled in Chinese"

tm send-keys -t main q
expect main "FERRY-EXIT=0" "q quits with status 0"
alt=$(tm display-message -p -t main '#{alternate_on}')
if [ "$alt" = "0" ]; then ok "the terminal left the alternate screen"; else fail "the terminal is still in the alternate screen"; fi

# Chinese from the environment, and SIGTERM restoring the terminal
start zh zh 100 30
expect zh "问题 · assess" "FERRY_LANG=zh starts in Chinese"
if [ -s "$work/zh.pid" ]; then
	kill -TERM "$(cat "$work/zh.pid")"
	expect zh "FERRY-EXIT=" "SIGTERM ends the workbench"
	alt=$(tm display-message -p -t zh '#{alternate_on}')
	if [ "$alt" = "0" ]; then ok "the terminal is restored after SIGTERM"; else fail "the terminal is not restored after SIGTERM"; fi
else
	fail "no pid recorded for the zh session"
fi

# NO_COLOR on a monochrome terminal still draws everything
start mono en 100 30 NO_COLOR=1 TERM=vt100
expect mono "Findings · assess" "NO_COLOR on a monochrome terminal draws the workbench"
tm send-keys -t mono Q
expect mono "FERRY-EXIT=0" "Q quits"

echo "tui end-to-end: $fails failed"
[ "$fails" -gt 125 ] && fails=125
exit "$fails"
