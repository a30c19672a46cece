#!/bin/sh
# The workbench's comparison views on the YOLOv5 consoles a consultant ingests: opened
# from the artifacts pane, a loss comparison is titled by the files the artifacts came
# from (never their stored copies under .ferry/artifacts/), says which column of the loss
# table was compared and that its points are epoch means; and the same console ingested
# as the GPU and as the NPU run is shown as proving nothing, never as a PASS, in English
# and Chinese. Skipped (exit 0) only when tmux is not installed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
FERRY="${FERRY:-$top/ferry}"
if ! command -v tmux >/dev/null 2>&1; then
	echo "tui compare views: tmux is not installed; skipped"
	exit 0
fi
[ -x "$FERRY" ] || { echo "FAIL $FERRY is not built"; exit 1; }
. "$top/tests/tui/lib.sh"

fx="$top/tests/fixtures/loss"
proj="$work/proj"
mkdir -p "$proj"
printf 'import torch\n\nmodel = torch.nn.Linear(4, 2).cuda()\n' >"$proj/train.py"
export FERRY_ACTOR='TUI Tester <tui@example.org>'
"$FERRY" -C "$proj" init >/dev/null 2>&1 || fail "init"
# two runs without labels, then the GPU console ingested twice under both labels
"$FERRY" -C "$proj" ingest loss-log "$fx/gpu_yolov5_tty.log" >/dev/null 2>&1 || fail "ingest the GPU console"
"$FERRY" -C "$proj" ingest loss-log "$fx/npu_yolov5_tty.log" >/dev/null 2>&1 || fail "ingest the NPU console"
"$FERRY" -C "$proj" compare loss 1 2 --column box_loss >/dev/null 2>&1 || fail "compare the two runs"
"$FERRY" -C "$proj" ingest loss-log "$fx/gpu_yolov5_console.log" --label gpu >/dev/null 2>&1 || fail "ingest as gpu"
"$FERRY" -C "$proj" ingest loss-log "$fx/gpu_yolov5_console.log" --label npu >/dev/null 2>&1 || fail "ingest again as npu"
"$FERRY" -C "$proj" compare loss gpu npu --column cls_loss >/dev/null 2>&1 || fail "compare the log with itself"

launcher "$proj"
start main en 140 40
expect main "Findings · assess" "the workbench opens"
keys main a
expect main "comparisons (2)" "the artifacts pane lists both comparisons"
expect main "loss · proves nothing" "the log compared with itself is listed as proving nothing"
expect main "gpu ↔ npu" "it is listed by its labels"
expect main "gpu_yolov5_tty.log ↔ npu_yolov5_tty.log" "the unlabelled runs are listed by their files"
# the newest comparison first: the same console twice
keys main j j j j Enter
expect main "Comparison of loss: gpu (A, GPU) against npu (B, NPU), recorded" "the same data opens titled by its labels"
expect main "PROVES NOTHING  mean relative error 0%" "its verdict says it proves nothing"
expect main "A and B are the same data (sha256" "and why"
expect main "compared: column cls_loss" "the view names the column compared"
if poll 2 shows main "PASS"; then fail "the same data twice is shown as a PASS"; else ok "the same data twice is no PASS"; fi
keys main q
expect main "comparisons (2)" "back in the artifacts pane"
keys main j Enter
expect main "Comparison of loss: gpu_yolov5_tty.log (A, GPU) against npu_yolov5_tty.log (B, NPU), recorded" \
	"the two runs open titled by the files they were ingested from"
if poll 2 shows main ".ferry/artifacts"; then fail "a stored copy's path is shown"; else ok "no stored copy's path is shown"; fi
expect main "PASS  mean relative error" "two runs that agree pass"
expect main "compared: column box_loss" "the view names the column compared"
expect main "one point per epoch from the console's loss table" "and what a point of the loss table is"
keys main Q

# in Chinese
start zh zh 140 40
expect zh "问题 · 评估" "the workbench opens in Chinese"
keys zh a j j j j Enter
expect zh "不能作为证据" "the same data proves nothing, in Chinese"
expect zh "比较的是：列 cls_loss" "the column compared, in Chinese"
keys zh Q

echo "tui compare views: $fails failed"
exit "$fails"
