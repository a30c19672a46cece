#!/bin/sh
# `ferry compare loss` on logs a real training run wrote (tests/fixtures/loss/, made by
# make_loss_logs.py with the distribution's torch): every framework format of the same
# run pairs up and passes; the run that blows up fails at the step its loss turned
# NaN/inf; the run that stopped early fails; the point counts match the run.
. "$(dirname "$0")/lib.sh"

fx="$top/tests/fixtures/loss"
p="$work/proj"
make_project "$p"
"$FERRY" init "$p" >/dev/null

for f in plain.log hf.log megatron.log lightning_bar.log metrics.csv tensorboard.csv wandb.csv detr.log \
	mmengine.log mmengine_iter.log timm.log trainer_state.json trainer_log.jsonl zh.log zh_gbk.log word_lm.log; do
	expect_exit 0 "$f: the float64 rerun agrees with the baseline" -- \
		"$FERRY" -C "$p" compare loss "$fx/gpu_$f" "$fx/npu_$f" --format json
	python3 - "$work/out" "$f" <<'PY' && ok "$f: every training step and nothing else" || fail "$f: points"
import json, sys
d, f = json.load(open(sys.argv[1])), sys.argv[2]
# HF logs every 5th step, word_language_model every 2nd; the others every step; eval and
# summary lines never count
want = 12 if f in ("hf.log", "trainer_state.json", "trainer_log.jsonl") else 30 if f == "word_lm.log" else 60
assert d["a"]["points"] == want and d["b"]["points"] == want, (d["a"]["points"], want)
assert d["aligned_steps"] == want and d["verdict"] == "pass", d["verdict"]
if f in ("hf.log", "detr.log", "timm.log", "trainer_state.json", "zh_gbk.log"):
    assert d["a"]["not_training"] >= 1, d["a"]
# the steps are the framework's own, not line numbers: mmengine counts from 1, the
# torchvision references and timm from 0 (epoch times batches per epoch plus batch)
final = {"mmengine.log": 60, "mmengine_iter.log": 60, "detr.log": 59, "timm.log": 59, "trainer_state.json": 60,
         "trainer_log.jsonl": 60, "zh.log": 60, "zh_gbk.log": 60, "word_lm.log": 60}
if f in final:
    assert not d["a"]["ordinal_steps"] and d["a"]["final_step"] == final[f], d["a"]
PY
done

# the blow-up: the loss is finite to the 41st step, inf at the 42nd, NaN after; the
# run that stopped early has 25 steps (Lightning's metrics.csv counts steps from 0;
# word_language_model logs every 2nd step, the 24th its last before the stop)
for f in plain.log lightning_bar.log metrics.csv mmengine.log timm.log zh.log zh_gbk.log word_lm.log; do
	first=1
	case $f in metrics.csv | timm.log) first=0 ;; esac
	short=$((24 + first))
	[ "$f" = word_lm.log ] && short=24
	expect_exit 1 "$f: the blow-up fails" -- "$FERRY" -C "$p" compare loss "$fx/gpu_$f" "$fx/npu_blowup_$f"
	one_line "$work/err" "$f: blow-up is one line"
	expect_grep "at step $((41 + first)) and stays there" "$work/err" "$f: names the step the loss blew up"
	expect_exit 1 "$f: the early stop fails" -- "$FERRY" -C "$p" compare loss "$fx/gpu_$f" "$fx/npu_short_$f"
	expect_grep "B stops at step $short" "$work/err" "$f: names where B stopped"
done

# a run that ends NaN/inf never passes, whatever the baseline did: the same NaN from the
# same step on both sides (a NaN baseline cannot vouch for anything), or only the baseline's
for f in plain.log metrics.csv; do
	expect_exit 1 "$f: NaN to the end on both sides fails" -- "$FERRY" -C "$p" compare loss "$fx/gpu_nan_$f" "$fx/npu_nan_$f"
	one_line "$work/err" "$f: the shared blow-up is one line"
	expect_grep "so does A's.*cannot vouch" "$work/err" "$f: says the baseline blew up as well"
	expect_exit 1 "$f: a baseline that blows up cannot vouch for B" -- "$FERRY" -C "$p" compare loss "$fx/gpu_nan_$f" "$fx/npu_$f"
	expect_grep "A's loss turns NaN/inf at step .* cannot vouch" "$work/err" "$f: names the baseline's blow-up"
done
# a NaN both runs share at the same steps (an overflow the loss scaler skipped) that the
# runs recover from is no fault of B's
expect_exit 0 "shared overflow steps that both runs recover from pass" -- \
	"$FERRY" -C "$p" compare loss "$fx/gpu_spike_tutorial.log" "$fx/npu_spike_tutorial.log"

# HF Trainer's trainer_state.json and LLaMA-Factory's trainer_log.jsonl log every 5th step:
# the blow-up shows at the first logged step after it, the early stop at its last
for f in trainer_state.json trainer_log.jsonl; do
	expect_exit 1 "$f: the blow-up fails" -- "$FERRY" -C "$p" compare loss "$fx/gpu_$f" "$fx/npu_blowup_$f"
	expect_grep "at step 45 and stays there" "$work/err" "$f: names the first logged step of the blow-up"
	expect_exit 1 "$f: the early stop fails" -- "$FERRY" -C "$p" compare loss "$fx/gpu_$f" "$fx/npu_short_$f"
	expect_grep "B stops at step 25" "$work/err" "$f: names where B stopped"
done
expect_exit 0 "trainer_state.json: a run logging every 10th step pairs up by step" -- \
	"$FERRY" -C "$p" compare loss "$fx/gpu_trainer_state.json" "$fx/npu_trainer_state_every10.json" --format json
python3 - "$work/out" <<'PY' && ok "trainer_state.json: 6 steps aligned, 10 to 60" || fail "trainer_state.json: interval alignment"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["aligned_steps"] == 6 and d["b"]["final_step"] == 60 and d["verdict"] == "pass", (d["aligned_steps"], d["b"])
PY
# the report's loss row says how many logged steps only one side holds: never compared
q="$work/every10"
make_project "$q"
"$FERRY" init "$q" >/dev/null
"$FERRY" -C "$q" compare loss "$fx/gpu_trainer_state.json" "$fx/npu_trainer_state_every10.json" >/dev/null 2>&1
"$FERRY" -C "$q" report --format md --output "$work/every10.md" >/dev/null 2>&1
expect_grep "6 steps only in A, 0 only in B" "$work/every10.md" "the report's loss row says which steps only A logged"

# a run that logs every 4th iteration against one that logs every iteration: the
# points pair up by mmengine's own counters, not by their order in the logs
expect_exit 0 "mmengine: a run logging every 4th iteration pairs up with the baseline" -- \
	"$FERRY" -C "$p" compare loss "$fx/gpu_mmengine.log" "$fx/npu_mmengine_every4.log" --format json
python3 - "$work/out" <<'PY' && ok "mmengine: 15 steps aligned, 4 to 60" || fail "mmengine: interval alignment"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["aligned_steps"] == 15 and d["b"]["final_step"] == 60 and d["verdict"] == "pass", (d["aligned_steps"], d["b"], d["verdict"])
PY

# YOLOv5's results.csv pads every name to 20 characters; its validation losses are not
# training losses, and --column takes the name as the user reads it
expect_exit 2 "YOLOv5: three training loss columns ask for --column" -- \
	"$FERRY" -C "$p" compare loss "$fx/gpu_yolov5_results.csv" "$fx/npu_yolov5_results.csv"
one_line "$work/err" "YOLOv5: one line"
expect_grep "several loss columns (train/box_loss, train/obj_loss, train/cls_loss); choose" "$work/err" \
	"YOLOv5: names the three training losses, without padding or validation losses"
expect_exit 0 "YOLOv5: --column train/box_loss compares the epochs" -- \
	"$FERRY" -C "$p" compare loss "$fx/gpu_yolov5_results.csv" "$fx/npu_yolov5_results.csv" --column train/box_loss \
	--format json
python3 - "$work/out" <<'PY' && ok "YOLOv5: three epochs, 0 to 2, from its epoch column" || fail "YOLOv5: epochs"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["a"]["points"] == 3 and not d["a"]["ordinal_steps"] and d["a"]["final_step"] == 2, d["a"]
PY

# the sum of YOLOv5's three training losses, and of two keys of a text log
expect_exit 0 "YOLOv5: --column A+B+C compares the summed training loss" -- \
	"$FERRY" -C "$p" compare loss "$fx/gpu_yolov5_results.csv" "$fx/npu_yolov5_results.csv" \
	--column "train/box_loss+train/obj_loss+train/cls_loss" --format json
python3 - "$work/out" <<'PY' && ok "YOLOv5: the sum of the three columns, named as such" || fail "YOLOv5: summed columns"
import json, sys
d = json.load(open(sys.argv[1]))
a = d["a"]
assert a["column"] == "train/box_loss + train/obj_loss + train/cls_loss" and a["points"] == 3, a
assert abs(a["final_loss"] - 0.112128) < 1e-6, a
PY
expect_exit 0 "mmengine: --column loss+loss_reg sums two keys of each line" -- \
	"$FERRY" -C "$p" compare loss "$fx/gpu_mmengine.log" "$fx/npu_mmengine.log" --column "loss+loss_reg" --format json
python3 - "$work/out" "$fx/gpu_mmengine.log" <<'PY' && ok "mmengine: each point is loss + loss_reg" || fail "mmengine: summed keys"
import json, re, sys
d = json.load(open(sys.argv[1]))
last = [l for l in open(sys.argv[2]) if "Epoch(train)" in l][-1]
want = sum(float(x) for x in re.findall(r"loss(?:_reg)?: ([0-9.]+)", last))
assert d["a"]["points"] == 60 and abs(d["a"]["final_loss"] - want) < 1e-9, (d["a"], want)
PY
# the comparison is recorded with its column: the report draws the curves of the same sum
# (in an engagement of its own: here the blown-up runs above still stand as failures)
y="$work/yolo"
make_project "$y"
"$FERRY" init "$y" >/dev/null
"$FERRY" -C "$y" compare loss "$fx/gpu_yolov5_results.csv" "$fx/npu_yolov5_results.csv" \
	--column "train/box_loss+train/obj_loss+train/cls_loss" >/dev/null 2>&1
expect_exit 0 "a report after the summed comparison" -- "$FERRY" -C "$y" report --format html --output "$work/yolo.html"
expect_grep 'class="chart"' "$work/yolo.html" "the report draws the loss curves of the summed columns"
expect_grep "from column train/box_loss+train/obj_loss+train/cls_loss" "$work/yolo.html" "the report names the summed columns"
expect_exit 2 "a sum naming a missing column is refused" -- \
	"$FERRY" -C "$p" compare loss "$fx/gpu_yolov5_results.csv" "$fx/npu_yolov5_results.csv" --column "train/box_loss+train/seg_loss"
expect_grep 'no column "train/seg_loss"' "$work/err" "the refusal names the missing column"
expect_exit 2 "--column naming nothing is refused, not compared as zeros" -- \
	"$FERRY" -C "$p" compare loss "$fx/gpu_yolov5_results.csv" "$fx/npu_yolov5_results.csv" --column "+"
one_line "$work/err" "--column naming nothing: one line"
# a column that is not a loss (a counter, the learning rate, memory) would be compared as
# a curve and pass, standing for the loss comparison it replaces: refused
for c in epoch step lr memory "train_loss_step+epoch"; do
	expect_exit 2 "--column $c is refused: not a loss" -- \
		"$FERRY" -C "$p" compare loss "$fx/gpu_metrics.csv" "$fx/npu_blowup_metrics.csv" --column "$c"
done
expect_grep "not a loss column" "$work/err" "the refusal says why"
one_line "$work/err" "not a loss column: one line"
expect_exit 2 "--column lr is refused on a text log too" -- \
	"$FERRY" -C "$p" compare loss "$fx/gpu_mmengine.log" "$fx/npu_blowup_mmengine.log" --column lr
expect_exit 1 "the blow-up still fails on its loss column" -- \
	"$FERRY" -C "$p" compare loss "$fx/gpu_metrics.csv" "$fx/npu_blowup_metrics.csv" --column train_loss_step

# a W&B export names its column after the run; --column takes the bare name
expect_exit 0 "--column picks a W&B column by its bare name" -- \
	"$FERRY" -C "$p" compare loss "$fx/gpu_wandb.csv" "$fx/npu_wandb.csv" --column train/loss
expect_grep 'from column "gpu-run - train/loss"' "$work/out" "the column read is said"
printf 'step,train_loss,aux_loss\n1,2.0,0.5\n' >"$work/two.csv"
expect_exit 2 "several loss columns ask for --column" -- "$FERRY" -C "$p" compare loss "$work/two.csv" "$work/two.csv"
one_line "$work/err" "several columns: one line"
expect_grep "two.csv: several loss columns (train_loss, aux_loss); choose one with --column NAME" "$work/err" \
	"several columns: names them"
expect_exit 2 "--column is for loss logs" -- "$FERRY" -C "$p" compare dump a b --column x

# Several ranks in one log (torchrun --tee 3): rank 1's loss blows up at step 42 while
# rank 0, printing after it at every step, does not. The step fails whichever rank
# printed last.
expect_exit 0 "ranks.log: two healthy ranks agree" -- "$FERRY" -C "$p" compare loss "$fx/gpu_ranks.log" "$fx/npu_ranks.log"
expect_exit 1 "ranks.log: one rank's blow-up fails the run" -- \
	"$FERRY" -C "$p" compare loss "$fx/gpu_ranks.log" "$fx/npu_blowup_ranks.log"
expect_grep "at step 42 and stays there" "$work/err" "ranks.log: names the step rank 1 blew up"

# The PyTorch tutorials' "Epoch [e/E], Step [s/S]" restarts its step every epoch: every
# epoch keeps its points, and NaN losses in the second epoch fail the run (they were
# overwritten by the last epoch's steps as "repeats").
expect_exit 0 "tutorial.log: the float64 rerun agrees" -- \
	"$FERRY" -C "$p" compare loss "$fx/gpu_tutorial.log" "$fx/npu_tutorial.log" --format json
python3 - "$work/out" <<'PY' && ok "tutorial.log: 12 points, steps 5 to 60, no repeats" || fail "tutorial.log: epochs merged"
import json, sys
d = json.load(open(sys.argv[1]))
a = d["a"]
assert a["points"] == 12 and a["final_step"] == 60 and a["repeated_steps"] == 0 and a["per_epoch_steps"], a
assert d["aligned_steps"] == 12 and d["verdict"] == "pass", d
PY
expect_exit 1 "tutorial.log: NaN losses in the second epoch fail" -- \
	"$FERRY" -C "$p" compare loss "$fx/gpu_tutorial.log" "$fx/npu_spike_tutorial.log"
expect_grep "NaN/inf at 2 steps, first at step 25" "$work/err" "tutorial.log: names the first NaN step, counted from the first epoch"

# A log with steps against one without (HF Trainer's trainer_state.json against its
# console dict lines, both every 5th step): the points pair in order, not step 5 with
# the 5th line.
expect_exit 0 "trainer_state.json against the console log: the runs agree" -- \
	"$FERRY" -C "$p" compare loss "$fx/gpu_trainer_state.json" "$fx/npu_hf.log" --format json
python3 - "$work/out" <<'PY' && ok "12 points paired by position" || fail "steps paired with line numbers"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["aligned_steps"] == 12 and d["a"]["paired_by_position"] and d["b"]["ordinal_steps"], d
PY
expect_exit 0 "the text output says how the points pair" -- \
	"$FERRY" -C "$p" compare loss "$fx/gpu_trainer_state.json" "$fx/npu_hf.log"
expect_grep "the other log gives no steps, so the points pair in order" "$work/out" "the pairing is said"

# ingest reads a loss log with the comparison's reader: what compare reads is taken, what
# it refuses is refused at the door (one line, exit 3, nothing stored)
for f in metrics.csv tensorboard.csv wandb.csv yolov5_results.csv trainer_state.json tutorial.log; do
	expect_exit 0 "ingest loss-log takes $f" -- "$FERRY" -C "$p" ingest loss-log "$fx/gpu_$f"
done
head -c 300 "$fx/gpu_trainer_state.json" >"$work/half_state.json"
expect_exit 3 "ingest loss-log refuses a trainer_state.json cut short" -- "$FERRY" -C "$p" ingest loss-log "$work/half_state.json"
one_line "$work/err" "cut trainer_state.json: one line"
expect_grep "half_state.json" "$work/err" "cut trainer_state.json: names the file"

# a copy cut short ends inside its last line: that line's loss is not read as a value
# (1.3050 of 1.305061), and the comparison says the line was left out
head -c -4 "$fx/gpu_plain.log" >"$work/cut_plain.log"
head -c -60 "$fx/gpu_yolov5_results.csv" >"$work/cut_results.csv"
for pair in "gpu_plain.log cut_plain.log 59 loss" "gpu_yolov5_results.csv cut_results.csv 2 train/box_loss"; do
	set -- $pair
	"$FERRY" -C "$p" compare loss "$fx/$1" "$work/$2" --column "$4" --format json >"$work/cut.json" 2>/dev/null
	python3 - "$work/cut.json" "$3" <<'PY' && ok "$2: the cut last line is left out" || fail "$2: cut last line read as data"
import json, sys
d, want = json.load(open(sys.argv[1])), int(sys.argv[2])
assert d["b"]["points"] == want, (d["b"]["points"], want)
assert d["b"].get("cut_last") is True, d["b"]
PY
	"$FERRY" -C "$p" compare loss "$fx/$1" "$work/$2" --column "$4" >"$work/cut.txt" 2>/dev/null
	expect_grep "last line has no line end and looks cut short: left out" "$work/cut.txt" "$2: the text output says so"
done
# a complete last line without a line end is read as usual
printf 'step 1 loss 2.5\nstep 2 loss 2.25 lr 0.1' >"$work/no_eol.log"
"$FERRY" -C "$p" compare loss "$work/no_eol.log" "$work/no_eol.log" --format json >"$work/eol.json" 2>/dev/null
python3 - "$work/eol.json" <<'PY' && ok "a last line ending in a word keeps its loss" || fail "a complete last line was dropped"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["b"]["points"] == 2 and not d["b"].get("cut_last"), d["b"]
PY
# the same run in two formats that count steps from 1 (the console) and from 0 (Lightning's
# metrics.csv): every step pairs with its neighbour and fails; the output says the losses
# agree one step apart, so the user looks at the step counting, not at the NPU
expect_exit 1 "one run counted from 1 and from 0 fails on its steps" -- \
	"$FERRY" -C "$p" compare loss "$fx/gpu_plain.log" "$fx/gpu_metrics.csv" --format json
python3 - "$work/out" <<'PY' && ok "the JSON gives the shift at which the losses agree" || fail "no step shift in the JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "fail" and d.get("agrees_shifted") == {"steps": -1, "mean_rel_err": d["agrees_shifted"]["mean_rel_err"]}, d.get("agrees_shifted")
assert d["agrees_shifted"]["mean_rel_err"] < 1e-5, d["agrees_shifted"]
PY
"$FERRY" -C "$p" compare loss "$fx/gpu_plain.log" "$fx/gpu_metrics.csv" >"$work/shift.txt" 2>/dev/null
expect_grep "B's losses agree with A's one step earlier" "$work/shift.txt" "the text says the losses agree one step apart"
expect_grep "count steps from 0 and from 1" "$work/shift.txt" "and names the likely cause"
# two runs that really differ get no such remark
"$FERRY" -C "$p" compare loss "$fx/gpu_plain.log" "$fx/npu_blowup_plain.log" --format json >"$work/noshift.json" 2>/dev/null
python3 - "$work/noshift.json" <<'PY' && ok "a real divergence gets no step-shift remark" || fail "a shift remark on a real divergence"
import json, sys
assert "agrees_shifted" not in json.load(open(sys.argv[1]))
PY
# several ranks printing their own loss: rank 1 runs 5 times the baseline while rank 0
# agrees. Whichever rank prints last, the step is judged by the value farthest from A, so
# the line order does not decide the verdict
python3 - "$fx/gpu_plain.log" "$work" <<'PY'
import re, sys
steps = [re.search(r"step (\d+) loss (\S+)", l).groups() for l in open(sys.argv[1]) if re.search(r"step (\d+) loss", l)]
for name, order in (("ranks_bad_last.log", (0, 1)), ("ranks_bad_first.log", (1, 0))):
    with open(sys.argv[2] + "/" + name, "w") as f:
        for s, v in steps:
            vals = {0: float(v), 1: float(v) * 5}
            for r in order:
                f.write("[default%d]:step %s loss %.6f\n" % (r, s, vals[r]))
PY
for order in last first; do
	expect_exit 1 "a rank at 5 times the baseline fails, printed $order" -- "$FERRY" -C "$p" compare loss "$fx/gpu_plain.log" "$work/ranks_bad_$order.log"
done
expect_grep "logged more than once with different losses" "$work/out" "the text says the repeated steps disagree"
# such a log against itself pairs its ranks' extremes: no difference, it passes
expect_exit 0 "a log of disagreeing ranks against itself passes" -- "$FERRY" -C "$p" compare loss "$work/ranks_bad_last.log" "$work/ranks_bad_first.log"
# a run whose ranks print the same reduced loss still passes against itself
expect_exit 0 "ranks printing the same loss pass" -- "$FERRY" -C "$p" compare loss "$fx/gpu_ranks.log" "$fx/npu_ranks.log"
finish
