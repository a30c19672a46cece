#!/bin/sh
# End-to-end workbench tests in a private tmux server (tmux -L, -f /dev/null):
# start ./ferry on a copy of a project, send keys, poll capture-pane until the
# expected text appears or a timeout passes. Covers: the init offer, running
# checks, moving through phases, a finding's detail, previewing and applying a
# fix, the new checkpoint in the timeline and reverting it, the readiness chart,
# a report, Chinese, resizing below and above the minimum, quitting and SIGTERM
# with the terminal restored, NO_COLOR on a monochrome terminal, a finding's detail at
# 80x24 in both languages with its scroll marker on a row of its own, and messages wider
# than the window read whole there. Every check
# polls with a timeout (no fixed sleeps), so a loaded machine only makes it
# slower; FERRY_TUI_TIMEOUT scales the timeouts (default 1). Prints "ok"/"FAIL"
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
. "$top/tests/tui/lib.sh"

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

launcher "$proj"

start main en 120 40
expect main "There is no engagement in" "offers to start an engagement in a fresh project"
keys main y
expect main "No checks have run for this phase yet" "the engagement was created and the workbench opened"
if [ -d "$proj/.ferry" ]; then ok ".ferry/ exists"; else fail ".ferry/ was not created"; fi

keys main r
expect main "run 1:" "r runs the assess checks and reports the run" 60
expect main "Findings · assess" "the findings list shows the assess phase"
expect main "Readiness" "the rail shows the readiness summary"
keys main c
expect main "Readiness of the project (assess)" "c shows the readiness chart of the assess phase"
expect main "/100" "the readiness score is drawn"
expect main "person-days" "the effort estimate is drawn"
keys main f

keys main l
expect main "Findings · design" "l moves to the next phase"
keys main 4
expect main "Findings · adapt" "4 selects the adapt phase"
keys main r
expect main "run 2:" "r runs the adapt checks" 60

# a finding with a proposed fix: adapt's checks carry them; fall back to assess
keys main / 'fix:yes' Enter
expect main "/fix:yes" "the filter keeps the findings with a fix"
if poll 5 shows main "No findings match the filter"; then
	keys main 1
	expect main "Findings · assess" "no fixes in adapt: back to assess"
fi
keys main Enter
if wait_for main "@@ " 10; then ok "the selected finding's detail shows its proposed fix as a diff"; else fail "no finding with a proposed fix was found"; fi
keys main Escape
keys main F
expect main "Fix preview ·" "F opens the fix preview" 30
expect main "y applies, n discards" "the preview asks before writing"
expect main "+++ b/" "the preview shows the plan's diff"
keys main y
expect main "Fixed 1 finding in 1 checkpoint; the head is now checkpoint #2" "y applies the fix as checkpoint #2" 30
expect main "#2 ·" "the status bar shows the new head"

keys main t
expect main "Checkpoint timeline, newest first (2)" "t shows the new checkpoint in the timeline"
keys main Enter
expect main "Diff of checkpoint #2" "Enter shows the fix's diff"
keys main Escape
keys main x
expect main "Revert checkpoint #2" "x asks before reverting"
keys main y
expect main "Reverted checkpoint #2 with checkpoint #3" "y reverts it with a new checkpoint" 30
expect main "is open again; a fix of many findings" "the revert says its finding is open again and bulk fixes leave it out"
keys main Escape

keys main : 'report md .ferry/e2e-report.md' Enter
expect main "Wrote .ferry/e2e-report.md" "the palette writes a report" 30
if [ -s "$proj/.ferry/e2e-report.md" ]; then ok "the report file exists"; else fail "the report file is missing"; fi
keys main : 'save-screen e2e-screen.txt' Enter
expect main "Screen saved to .ferry/screens/e2e-screen.txt" "the palette saves the screen under .ferry/screens/" 30
if [ -s "$proj/.ferry/screens/e2e-screen.txt" ] && [ ! -e "$proj/e2e-screen.txt" ]; then ok "the screen dump is not in the project"
else fail "the screen dump landed in the project or is missing"; fi

keys main Escape f g
expect main "row 1 of" "g goes to the first row; the header says which row of how many"
keys main G
if poll 10 lacks main "row 1 of"; then ok "G goes to the last row"; else fail "G did not move to the last row"; fi
keys main i
expect main "Checklist (ticked from check results)" "i shows the phase guide"
keys main '?'
expect main "ferry workbench keys" "? shows the help overlay"
keys main Escape f

keys main : 'lang zh' Enter
expect main "界面语言：简体中文" "the palette switches the interface to Chinese"
expect main "阶段" "the rail is titled in Chinese"

tm resize-window -t main -x 70 -y 20
expect main "ferry 需要至少 80x24 的窗口" "a window below 80x24 asks to be enlarged"
tm resize-window -t main -x 100 -y 30
expect main "问题 ·" "growing the window again restores the workbench"

keys main q
expect main "FERRY-EXIT=0" "q quits with status 0"
if poll 10 alt_is main 0; then ok "the terminal left the alternate screen"; else fail "the terminal is still in the alternate screen"; fi

# Chinese from the environment, and SIGTERM restoring the terminal
start zh zh 100 30
expect zh "问题 · 评估" "FERRY_LANG=zh starts in Chinese"
if poll 5 test -s "$work/zh.pid"; then
	kill -TERM "$(cat "$work/zh.pid")"
	expect zh "FERRY-EXIT=" "SIGTERM ends the workbench"
	if poll 10 alt_is zh 0; then ok "the terminal is restored after SIGTERM"; else fail "the terminal is not restored after SIGTERM"; fi
else
	fail "no pid recorded for the zh session"
fi

# NO_COLOR on a monochrome terminal still draws everything
start mono en 100 30 NO_COLOR=1 TERM=vt100
expect mono "Findings · assess" "NO_COLOR on a monochrome terminal draws the workbench"
tm send-keys -t mono Q
expect mono "FERRY-EXIT=0" "Q quits"

# 80x24 in both languages: a finding's detail longer than its pane (the example's
# suggestions, wrapped to the pane's edge as Chinese always is) marks what follows on a
# row of its own — every row showing a marker ends with it, blanks before it, never drawn
# over the text — and scrolled (J), what lies above. A refusal wider than the window is
# shown whole on the rows it needs; one longer than a quarter of the screen says which key
# shows it whole, and M lists the messages, each whole. Q quits.
marker='(↓ [0-9]+ more lines?|↑ [0-9]+ lines? above|↓ 还有 [0-9]+ 行|↑ 上方还有 [0-9]+ 行)'
# label N: an artifact label of N parts, no blank in it, ending in -END
label() { i=0 l=gpu; while [ "$i" -lt "$1" ]; do l="$l-run$i" i=$((i + 1)); done; echo "$l-END"; }
# marked SESSION: the rows of the pane that show a scroll marker; overlaps SESSION: those
# of them where it shares the row with text
marked() { tm capture-pane -p -t "$1" | grep -E '↓|↑'; }
overlaps() { marked "$1" | grep -v -E "  $marker\$"; }
for lang in en zh; do
	start "m$lang" "$lang" 80 24
	if [ "$lang" = zh ]; then expect "m$lang" "问题 · 评估" "zh at 80x24: the workbench opens"
	else expect "m$lang" "Findings · assess" "en at 80x24: the workbench opens"; fi
	seen=0 bad=""
	for step in j j j j j j j j j j J J j J; do
		keys "m$lang" "$step"
		poll 5 settled "m$lang"
		[ -n "$(marked "m$lang")" ] && seen=$((seen + 1))
		[ -z "$bad" ] && bad=$(overlaps "m$lang")
	done
	if [ -z "$bad" ] && [ "$seen" -gt 0 ]; then ok "$lang at 80x24: the detail's scroll marker has a row of its own ($seen screens marked)"
	elif [ "$seen" -eq 0 ]; then fail "$lang at 80x24: no detail was long enough to be marked"
	else
		fail "$lang at 80x24: a scroll marker is drawn over the text:"
		echo "$bad" | sed 's/^/     | /'
	fi
	if [ "$lang" = zh ]; then why="产物标签或文件" whole="按 M 查看全文" title="消息（最新在前"
	else why="artifact label or file" whole="M shows it whole" title="Messages, newest first"; fi
	keys "m$lang" : "compare loss $(label 30) npu" Enter
	expect "m$lang" "$why" "$lang at 80x24: a refusal wider than the window is shown to its end"
	if shows "m$lang" "-run29-END"; then ok "$lang at 80x24: ... the label it names too"
	else fail "$lang at 80x24: the end of the label is not shown"; fi
	keys "m$lang" : "compare loss $(label 75) npu" Enter
	expect "m$lang" "$whole" "$lang at 80x24: a message longer than a quarter of the screen names the key that shows it"
	keys "m$lang" M
	expect "m$lang" "$title" "$lang at 80x24: M lists the messages"
	expect "m$lang" "-run74-END" "$lang at 80x24: ... the long one whole"
	keys "m$lang" Q
	expect "m$lang" "FERRY-EXIT=0" "$lang at 80x24: Q quits"
done

echo "tui end-to-end: $fails failed"
[ "$fails" -gt 125 ] && fails=125
exit "$fails"
