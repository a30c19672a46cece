#!/bin/sh
# `ferry ingest loss-log` and `ferry compare loss` on the console loss table of the YOLO
# trainers (tests/fixtures/loss/*yolov5*, *yolov8*: a tiny detector trained with the
# distribution's torch, printed by make_loss_logs.py as YOLOv5 v7.0 prints on a terminal,
# through tqdm's \r redraws, as today's YOLOv5 prints in a non-interactive console, one
# row per epoch, and as ultralytics YOLOv8 prints on a terminal, "\r\033[K" redraws).
# Each epoch is one point, the bar's running mean at the epoch's last batch (the epoch's
# mean, as results.csv records it); several loss columns need --column as in a CSV
# export; the validation table between the epochs is never read as training losses.
. "$(dirname "$0")/lib.sh"

fx="$top/tests/fixtures/loss"
p="$work/proj"
make_project "$p"
"$FERRY" init "$p" >/dev/null

# the consultant's steps: ingest both consoles, compare them by their labels
expect_exit 0 "ingest loss-log takes YOLOv5's console output" -- \
	"$FERRY" -C "$p" ingest loss-log "$fx/gpu_yolov5_tty.log" --label gpu
expect_exit 0 "ingest loss-log takes the NPU run's console output" -- \
	"$FERRY" -C "$p" ingest loss-log "$fx/npu_yolov5_tty.log" --label npu
expect_exit 2 "several loss columns without --column: a usage error" -- "$FERRY" -C "$p" compare loss gpu npu
one_line "$work/err" "several loss columns: one line"
expect_grep "gpu_yolov5_tty.log: several loss columns (box_loss, obj_loss, cls_loss); choose one with --column NAME" \
	"$work/err" "the refusal names the file and the table's loss columns, as for a CSV export"
expect_exit 0 "compare loss gpu npu --column box_loss passes" -- \
	"$FERRY" -C "$p" compare loss gpu npu --column box_loss
expect_grep 'from column "box_loss" of the console'"'"'s loss table' "$work/out" "the text says which column was compared"
expect_grep "one point per epoch, the epoch's mean loss: the running mean the progress bar shows at the epoch's last batch, not a per-step loss" \
	"$work/out" "the text says the points are epoch means, not per-step losses"
expect_grep "epochs 0–9 (the steps below are epochs)" "$work/out" "the text says the steps are YOLOv5's epochs"

for f in yolov5_tty.log yolov5_console.log yolov8_tty.log; do
	case $f in yolov8*) cols="box_loss, cls_loss, dfl_loss" first=1 ;; *) cols="box_loss, obj_loss, cls_loss" first=0 ;; esac
	expect_exit 2 "$f: several loss columns ask for --column" -- \
		"$FERRY" -C "$p" compare loss "$fx/gpu_$f" "$fx/npu_$f"
	expect_grep "several loss columns ($cols)" "$work/err" "$f: the refusal lists the loss columns"
	expect_exit 0 "$f: the mixed-precision rerun agrees with the baseline on box_loss" -- \
		"$FERRY" -C "$p" compare loss "$fx/gpu_$f" "$fx/npu_$f" --column box_loss --format json
	python3 - "$work/out" "$first" <<'PY' && ok "$f: one point per epoch, the validation table left out" || fail "$f: epochs"
import json, sys
d, first = json.load(open(sys.argv[1])), int(sys.argv[2])
for side in "ab":
    s = d[side]
    # ten epochs, numbered as the trainer prints them (YOLOv5 from 0, YOLOv8 from 1); the
    # validation table's "all" and per-class rows (class names are digits) add none
    assert s["points"] == 10 and s["loss_table"] == "epochs" and s["partial_epochs"] == 0, s
    assert s["column"] == "box_loss" and s["final_step"] == first + 9 and not s["ordinal_steps"], s
assert [r["step"] for r in d["steps"]] == list(range(first, first + 10)), d["steps"]
assert d["verdict"] == "pass" and 0 < d["mean_rel_err"] < 0.02, (d["verdict"], d["mean_rel_err"])
PY
done

# each point is the epoch's mean, the last redraw of its bar, which results.csv records
# for the epoch too (to the 4 digits the console prints), not a running mean halfway
expect_exit 0 "the console's epochs against the same run's results.csv" -- \
	"$FERRY" -C "$p" compare loss "$fx/gpu_yolov5_tty.log" "$fx/gpu_yolov5run_results.csv" --column train/box_loss --format json
python3 - "$work/out" <<'PY' && ok "each epoch's point is results.csv's train/box_loss for it" || fail "epoch means"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["aligned_steps"] == 10 and d["max_rel_err"] < 5e-4, (d["aligned_steps"], d["max_rel_err"])
assert d["a"]["column"] == "box_loss" and d["b"]["column"] == "train/box_loss", (d["a"], d["b"])
PY
# the terminal's redraws and the one row per epoch of a non-interactive console are the
# same losses
expect_exit 0 "terminal and non-interactive console of one run" -- \
	"$FERRY" -C "$p" compare loss "$fx/gpu_yolov5_tty.log" "$fx/gpu_yolov5_console.log" --column cls_loss --format json
python3 - "$work/out" <<'PY' && ok "the \\r redraws and the per-epoch rows give the same curve" || fail "tty vs console"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["aligned_steps"] == 10 and d["max_rel_err"] == 0, d["max_rel_err"]
PY

# --column sums several, and takes results.csv's name for a console column
expect_exit 0 "--column box_loss+obj_loss+cls_loss sums the parts" -- \
	"$FERRY" -C "$p" compare loss "$fx/gpu_yolov5_console.log" "$fx/npu_yolov5_console.log" \
	--column "box_loss+obj_loss+cls_loss" --format json
python3 - "$work/out" "$fx/gpu_yolov5_console.log" <<'PY' && ok "the sum of the three parts, named as such" || fail "summed columns"
import json, sys
d = json.load(open(sys.argv[1]))
last = [l for l in open(sys.argv[2]) if "9/9" in l and "100%" in l][-1].split()
assert d["a"]["column"] == "box_loss + obj_loss + cls_loss", d["a"]
assert abs(d["a"]["final_loss"] - sum(float(x) for x in last[2:5])) < 1e-9, (d["a"]["final_loss"], last)
PY
expect_exit 0 "--column train/box_loss names the console's box_loss" -- \
	"$FERRY" -C "$p" compare loss "$fx/gpu_yolov5_console.log" "$fx/npu_yolov5_tty.log" --column train/box_loss
expect_exit 2 "a column the table does not have is refused" -- \
	"$FERRY" -C "$p" compare loss "$fx/gpu_yolov8_tty.log" "$fx/npu_yolov8_tty.log" --column obj_loss
one_line "$work/err" "missing column: one line"
expect_grep 'gpu_yolov8_tty.log: no column "obj_loss" in the loss table'"'"'s header (Epoch, GPU_mem, box_loss, cls_loss, dfl_loss, Instances, Size)' \
	"$work/err" "the refusal names the file, the column and the header"

# the run killed inside its 7th epoch: that epoch's partial mean is left out, and B stops
# early; the run whose learning rate turns infinite fails where its loss turned NaN
expect_exit 1 "a run killed in epoch 6 fails: it stops early" -- \
	"$FERRY" -C "$p" compare loss "$fx/gpu_yolov5_tty.log" "$fx/npu_short_yolov5_tty.log" --column box_loss
expect_grep "B stops at step 5, A runs to step 9" "$work/err" "the failure names the last finished epoch"
"$FERRY" -C "$p" compare loss "$fx/gpu_yolov5_tty.log" "$fx/npu_short_yolov5_tty.log" --column box_loss >"$work/short.txt" 2>/dev/null
expect_grep "1 epoch the run stopped in before its last batch left out" "$work/short.txt" "the text says the unfinished epoch was left out"
expect_exit 1 "a run whose loss turns NaN fails" -- \
	"$FERRY" -C "$p" compare loss "$fx/gpu_yolov5_tty.log" "$fx/npu_blowup_yolov5_tty.log" --column obj_loss
expect_grep "B's loss turns NaN/inf at step 6 and stays there" "$work/err" "the failure names the epoch the loss blew up"

# the validation rows are never training losses, even without their header to close the
# loss table (a log cut and pasted): their first cell is a class name, no epoch
grep -v "Class  *Images" "$fx/gpu_yolov5_console.log" >"$work/noval.log"
expect_exit 0 "a console without the validation headers" -- \
	"$FERRY" -C "$p" compare loss "$work/noval.log" "$fx/npu_yolov5_console.log" --column box_loss --format json
python3 - "$work/out" <<'PY' && ok "the \"all\" and per-class rows are not read as epochs" || fail "validation rows read"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["a"]["points"] == 10 and d["a"]["final_step"] == 9, d["a"]
PY
# a console whose only epoch never finished holds nothing to compare
printf '\n      Epoch    GPU_mem   box_loss   obj_loss   cls_loss  Instances       Size\n\r        0/9         0G     0.3135     0.7042      1.584          8         16:  12%%|#2        | 1/8 [00:00<00:01,  6.67it/s]' \
	>"$work/killed.log"
expect_exit 3 "a loss table without a finished epoch is refused" -- \
	"$FERRY" -C "$p" compare loss "$work/killed.log" "$fx/npu_yolov5_tty.log" --column box_loss
one_line "$work/err" "no finished epoch: one line"
expect_grep "killed.log: the loss table holds no finished epoch (1 stopped before its last batch)" "$work/err" "the refusal says why"

# the common mistake: one console ingested as the GPU run and again as the NPU run. The
# comparison meets any tolerance and proves nothing: its verdict says so instead of PASS,
# on stdout and stderr alike, and JSON names what was the same
s="$work/same"
make_project "$s"
"$FERRY" init "$s" >/dev/null
"$FERRY" -C "$s" ingest loss-log "$fx/gpu_yolov5_console.log" >/dev/null 2>&1
"$FERRY" -C "$s" ingest loss-log "$fx/gpu_yolov5_console.log" >/dev/null 2>&1
expect_exit 0 "the same console twice: no tolerance failed" -- "$FERRY" -C "$s" compare loss 1 2 --column box_loss
expect_grep "^verdict: PROVES NOTHING — A and B are the same data (sha256 [0-9a-f]*): a run compared with itself says nothing about the NPU" \
	"$work/out" "the verdict says the comparison proves nothing"
if grep -q "PASS" "$work/out"; then fail "the same data twice is called a PASS"; else ok "the same data twice is no PASS"; fi
expect_grep "warning: A and B are the same data" "$work/err" "stderr warns too"
expect_grep "^  A  #1 gpu_yolov5_console.log" "$work/out" "an artifact given by id is named by the file it was ingested from (and its id, as B has that name too)"
expect_exit 0 "the same console twice, as JSON" -- "$FERRY" -C "$s" compare loss 1 2 --column box_loss --format json
python3 - "$work/out" <<'PY' && ok "JSON: same_input names what was the same" || fail "JSON same_input"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["same_input"] == "bytes" and d["verdict"] == "pass", (d.get("same_input"), d["verdict"])
assert d["a"]["file"] == "gpu_yolov5_console.log" and d["a"]["shown"] == "#1 gpu_yolov5_console.log", d["a"]
PY
"$FERRY" -C "$s" log --events >"$work/events.txt" 2>&1
expect_grep "loss PROVES NOTHING: #1 gpu_yolov5_console.log against #2 gpu_yolov5_console.log, column box_loss" \
	"$work/events.txt" "log --events: the comparison proved nothing, with its inputs and column"
# the NPU run (mixed precision) against the GPU run: two runs that agree pass as such
expect_exit 0 "the NPU run's console against the GPU run's" -- \
	"$FERRY" -C "$s" compare loss "$fx/gpu_yolov5_console.log" "$fx/npu_yolov5_console.log" --column box_loss
expect_grep "^verdict: PASS" "$work/out" "two runs that agree pass"

# tables whose header names hold blanks or whose epochs are plain integers, as other
# trainers print them (make_loss_logs.py): fastai's console table (epochs from 0, the
# smoothed train_loss of each epoch), transformers' notebook table copied into a text file
# (tab-separated, "Training Loss", "No log" before the first logged loss) and the model
# card transformers writes (a Markdown table, a row per evaluation, the Step column)
for f in fastai.log hf_notebook.log hf_model_card.md; do
	case $f in
	fastai.log) steps="0 1 2" table=epochs col=train_loss ;;
	hf_notebook.log) steps="2 3" table=epochs col="Training Loss" ;;
	hf_model_card.md) steps="40 60" table=steps col="Training Loss" ;;
	esac
	expect_exit 0 "$f: the NPU run's table against the GPU run's passes" -- \
		"$FERRY" -C "$s" compare loss "$fx/gpu_$f" "$fx/npu_$f" --format json
	python3 - "$work/out" "$steps" "$table" "$col" <<'PY' && ok "$f: one point per row, read from its loss column" || fail "$f: rows"
import json, sys
d, steps, table, col = json.load(open(sys.argv[1])), [int(x) for x in sys.argv[2].split()], sys.argv[3], sys.argv[4]
for side in "ab":
    s = d[side]
    # a "No log" row is no point; the validation loss column is never read
    assert s["points"] == len(steps) and s["loss_table"] == table and s["column"] == col, s
assert [r["step"] for r in d["steps"]] == steps, d["steps"]
assert d["verdict"] == "pass", d["verdict"]
PY
	expect_exit 1 "$f: the run whose loss turns NaN fails" -- \
		"$FERRY" -C "$s" compare loss "$fx/gpu_$f" "$fx/npu_blowup_$f"
	expect_grep "^verdict: FAIL" "$work/out" "$f: the blow-up is a FAIL"
done
expect_grep "NaN" "$work/out" "the failure names the NaN"

# a table copied with a tab after its last cell reads the same
printf 'Epoch\tTraining Loss\tValidation Loss\t\n1\tNo log\t0.8\t\n2\t0.7\t0.6\t\n3\t0.5\t0.4\t\n' >"$work/tabs.log"
expect_exit 0 "a tab-separated table with trailing tabs" -- "$FERRY" -C "$s" compare loss "$work/tabs.log" "$work/tabs.log" --format json
python3 - "$work/out" <<'PY' && ok "its rows are read under their header" || fail "trailing tabs"
import json, sys
a = json.load(open(sys.argv[1]))["a"]
assert a["points"] == 2 and a["column"] == "Training Loss", a
PY

# detr's log.txt: a JSON line per epoch with "epoch" and no step (train_loss beside
# train_loss_ce and test_loss): the epochs are the steps, the key read is named, and a run
# resumed from a checkpoint, which logs some epochs twice, pairs by epoch, not by line
expect_exit 0 "detr's log.txt: the NPU run against the GPU run" -- \
	"$FERRY" -C "$s" compare loss "$fx/gpu_detr_log.txt" "$fx/npu_detr_log.txt"
expect_grep 'from key "train_loss", epochs 0–11 (the steps below are epochs)' "$work/out" "the text names the key read and says the steps are epochs"
expect_grep "one point per epoch, the loss its line gives" "$work/out" "and what a point is"
expect_exit 0 "detr's log.txt of a resumed run against the GPU run" -- \
	"$FERRY" -C "$s" compare loss "$fx/gpu_detr_log.txt" "$fx/npu_resumed_detr_log.txt" --format json
python3 - "$work/out" <<'PY' && ok "the resumed run's epochs pair with the baseline's, the re-logged ones once" || fail "resumed detr log"
import json, sys
d = json.load(open(sys.argv[1]))
b = d["b"]
assert b["points"] == 12 and b["epoch_steps"] and b["key"] == "train_loss" and not b["ordinal_steps"], b
assert [r["step"] for r in d["steps"]] == list(range(12)), d["steps"]
assert d["verdict"] == "pass" and d["mean_rel_err"] < 1e-6, (d["verdict"], d["mean_rel_err"])
PY
expect_exit 1 "detr's log.txt of a run that blew up fails" -- \
	"$FERRY" -C "$s" compare loss "$fx/gpu_detr_log.txt" "$fx/npu_blowup_detr_log.txt"
expect_grep "^verdict: FAIL — B's loss turns NaN/inf at step 8 and stays there" "$work/out" "the blow-up names its epoch (the steps are epochs)"
expect_exit 1 "detr's log.txt of a run that stopped early fails" -- \
	"$FERRY" -C "$s" compare loss "$fx/gpu_detr_log.txt" "$fx/npu_short_detr_log.txt"
expect_grep "^verdict: FAIL" "$work/out" "the truncated run is a FAIL"
# a log with an epoch on every line and many lines per epoch keeps its lines as points
printf 'epoch 1 loss 0.9\nepoch 1 loss 0.8\nepoch 1 loss 0.7\nepoch 2 loss 0.6\nepoch 2 loss 0.5\nepoch 2 loss 0.4\n' >"$work/batches.log"
expect_exit 0 "lines of one epoch are several points" -- \
	"$FERRY" -C "$s" compare loss "$work/batches.log" "$work/batches.log" --format json
python3 - "$work/out" <<'PY' && ok "per-batch lines naming their epoch stay six points" || fail "per-batch epochs"
import json, sys
a = json.load(open(sys.argv[1]))["a"]
assert a["points"] == 6 and not a.get("epoch_steps"), a
PY

finish
