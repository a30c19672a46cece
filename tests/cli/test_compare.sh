#!/bin/sh
# `ferry compare loss` and `ferry compare dump` end to end: generated training logs and
# .npy files (written byte by byte, numpy not needed), artifacts by id and label, text /
# JSON / CSV output, exit codes 0 (within tolerance), 1 (outside), 2 (usage), 3 (corrupt
# input, one line naming the file), and the audit events.
. "$(dirname "$0")/lib.sh"

p="$work/proj"
make_project "$p"
"$FERRY" init "$p" >/dev/null
d="$work/data"
mkdir -p "$d"

# --- loss logs in different shapes: Megatron for the GPU, dict lines for the NPU ---
python3 - "$d" <<'EOF'
import math, sys
d = sys.argv[1]
def curve(s): return 3 * math.exp(-s / 40) + 1
with open(d + "/gpu.log", "w") as f:
    f.write("training starts\n")
    for s in range(1, 101):
        f.write(" iteration %8d/     100 | consumed samples: %8d | lm loss: %.6E | loss scale: 65536.0 |\n" % (s, s * 32, curve(s)))
with open(d + "/npu_ok.log", "w") as f:
    for s in range(1, 101):
        f.write("{'loss': %r, 'grad_norm': 1.0, 'step': %d}\n" % (curve(s) * 1.004, s))
    f.write("{'eval_loss': 9.9, 'step': 100}\n")
with open(d + "/npu_bad.log", "w") as f:
    for s in range(1, 101):
        f.write("step %d loss=%r\n" % (s, curve(s) * (1.0 if s < 50 else 1.08)))
with open(d + "/npu_blowup.log", "w") as f:
    for s in range(1, 101):
        f.write("step %d loss=%r\n" % (s, curve(s) if s < 60 else float("nan")))
with open(d + "/npu_short.log", "w") as f:
    for s in range(1, 31):
        f.write("step %d loss=%r\n" % (s, curve(s)))
with open(d + "/nosteps.log", "w") as f:
    for s in range(1, 101):
        f.write("Epoch 1: loss %.5f\n" % curve(s))
EOF
printf 'nothing to see\n' >"$d/empty.log"
printf 'loss 1\0\0\0' >"$d/binary.log"

expect_exit 0 "compare loss within tolerance" -- "$FERRY" -C "$p" compare loss "$d/gpu.log" "$d/npu_ok.log"
expect_grep "verdict: PASS" "$work/out" "loss text verdict"
expect_grep "aligned 100 steps" "$work/out" "loss steps aligned across log shapes"
expect_grep "▁" "$work/out" "loss text has a sparkline"

expect_exit 1 "compare loss outside tolerance exits 1" -- "$FERRY" -C "$p" compare loss "$d/gpu.log" "$d/npu_bad.log"
one_line "$work/err" "tolerance failure: one line"
expect_grep "exceeds the tolerance" "$work/err" "tolerance failure says why"
expect_grep "first step above the tolerance: 50" "$work/out" "first step over the tolerance"

# a run that blows up or stops early fails although its finite steps agree
expect_exit 1 "a NaN blow-up fails" -- "$FERRY" -C "$p" compare loss "$d/gpu.log" "$d/npu_blowup.log"
one_line "$work/err" "blow-up: one line"
expect_grep "NaN/inf at step 60 and stays there" "$work/err" "blow-up names the step"
expect_grep "41 NaN/inf values" "$work/out" "NaN losses counted"
expect_grep "verdict: FAIL" "$work/out" "blow-up verdict"
expect_exit 1 "a truncated run fails" -- "$FERRY" -C "$p" compare loss "$d/gpu.log" "$d/npu_short.log"
expect_grep "B stops at step 30, A runs to step 100" "$work/err" "truncation names the steps"
# just under the 90 % a run must cover: the share shown is never rounded up to it
python3 - "$d" <<'EOF2'
import math, sys
with open(sys.argv[1] + "/npu_almost.log", "w") as f:
    for s in range(1, 90):
        f.write("step %d loss=%r\n" % (s, 3 * math.exp(-s / 40) + 1))
EOF2
expect_exit 1 "a run that stops just short of 90 % fails" -- "$FERRY" -C "$p" compare loss "$d/gpu.log" "$d/npu_almost.log"
expect_grep "B stops at step 89, A runs to step 100 (88.8% of A's run covered, at least 90% needed)" "$work/err" \
	"the share is shown as it is, beside the share needed"
expect_exit 0 "a shorter baseline compares on the common steps" -- "$FERRY" -C "$p" compare loss "$d/npu_short.log" "$d/gpu.log"

# one aligned step cannot vouch for A's run: B logged steps 1000-2000 of a run A logged
# 1-1000, and its step 1000 happens to agree (the rest is 5x the loss)
python3 - "$d" <<'EOF'
import math, sys
d = sys.argv[1]
def curve(s): return 3 * math.exp(-s / 300) + 0.1
with open(d + "/gpu_1k.log", "w") as f:
    for s in range(1, 1001):
        f.write("step %d loss %.6f\n" % (s, curve(s)))
with open(d + "/npu_later.log", "w") as f:
    for s in range(1000, 2001):
        f.write("step %d loss %.6f\n" % (s, curve(s) if s == 1000 else curve(s) * 5))
with open(d + "/npu_end3x.log", "w") as f:
    for s in range(1, 1001):
        f.write("step %d loss %.6f\n" % (s, curve(s) * (3 if s > 997 else 1)))
with open(d + "/npu_noisy.log", "w") as f:
    for s in range(1, 1001):
        f.write("step %d loss %.6f\n" % (s, curve(s) * (1 + 0.004 * math.sin(s * 1.7))))
EOF
expect_exit 1 "one aligned step of A's 1000 does not pass" -- "$FERRY" -C "$p" compare loss "$d/gpu_1k.log" "$d/npu_later.log"
one_line "$work/err" "too few aligned steps: one line"
expect_grep "aligned 1 of A's 1000 steps" "$work/err" "the failure counts the aligned steps against A's"
expect_grep "verdict: FAIL" "$work/out" "too few aligned steps: text verdict"
expect_exit 1 "too few aligned steps: JSON" -- "$FERRY" -C "$p" compare loss "$d/gpu_1k.log" "$d/npu_later.log" --format json
python3 - "$work/out" <<'EOF' && ok "loss JSON says the comparison is incomplete" || fail "loss JSON incomplete"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "fail" and d["incomplete"] is True and d["aligned_steps"] == 1, d["verdict"]
assert d["aligned_coverage"] < 0.01 and d["truncated"] is False and d["coverage"] == 1, d["aligned_coverage"]
EOF
# the record says why: tune.acceptance and the report name the aligned steps, not a mean
q="$work/sparse"
(make_project "$q")
"$FERRY" init "$q" >/dev/null
"$FERRY" -C "$q" compare loss "$d/gpu_1k.log" "$d/npu_later.log" >/dev/null 2>&1
"$FERRY" -C "$q" check --plugin tune.acceptance --format json >"$work/acc.json" 2>/dev/null
expect_grep "aligned 1 of A's 1000 steps" "$work/acc.json" "tune.acceptance names the aligned steps"
expect_exit 0 "a report after the incomplete loss comparison" -- "$FERRY" -C "$q" report --format md --output "$work/sparse.md"
expect_grep "aligned 1 of A's 1000 steps" "$work/sparse.md" "the report says why the loss verdict fails"
# the last 3 of 1000 steps at 3x the loss: the mean over the run stays under 1 %, the end
# of training does not
"$FERRY" -C "$p" config tolerance.loss 0.01
expect_exit 1 "a diverging end of training fails although the mean passes" -- \
	"$FERRY" -C "$p" compare loss "$d/gpu_1k.log" "$d/npu_end3x.log" --format json
python3 - "$work/out" <<'EOF' && ok "loss JSON: the end window's error and where it starts" || fail "loss JSON end window"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "fail" and d["mean_rel_err"] < 0.01, d["mean_rel_err"]
assert d["end_steps"] == 100 and d["end_from_step"] == 901 and d["end_mean_rel_err"] > 0.05, d
EOF
expect_grep "last 100 aligned steps" "$work/err" "the failure names the end of training"
expect_exit 0 "noise that agrees on average still passes, to the end" -- \
	"$FERRY" -C "$p" compare loss "$d/gpu_1k.log" "$d/npu_noisy.log"
"$FERRY" -C "$p" config tolerance.loss 0.02

# artifacts by id and label; the configured tolerance
"$FERRY" -C "$p" ingest loss-log "$d/gpu.log" --label gpu >"$work/ing" 2>&1
gid=$(sed -n 's/.* artifact \([0-9]*\) .*/\1/p' "$work/ing")
"$FERRY" -C "$p" ingest loss-log "$d/npu_bad.log" --label npu >/dev/null 2>&1
expect_exit 1 "compare loss by labels" -- "$FERRY" -C "$p" compare loss gpu npu
"$FERRY" -C "$p" config tolerance.loss 0.1
expect_exit 0 "tolerance.loss from the engagement config" -- "$FERRY" -C "$p" compare loss "$gid" npu --format json
python3 - "$work/out" <<'EOF' && ok "loss JSON has the fields tools read" || fail "loss JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["kind"] == "loss" and d["verdict"] == "pass" and d["tolerance"] == 0.1, d
assert d["a"]["artifact"] is not None and len(d["a"]["sha256"]) == 64
assert d["aligned_steps"] == 100 and d["first_exceed_step"] is None and len(d["steps"]) == 100
assert d["b"]["nonfinite"] == 0 and d["truncated"] is False and d["blowup_step"] is None
EOF
"$FERRY" -C "$p" config tolerance.loss 0.02
expect_exit 1 "a log without steps aligns by line ordinal" -- "$FERRY" -C "$p" compare loss "$d/nosteps.log" "$d/npu_bad.log"
expect_grep "line ordinals" "$work/out" "ordinal steps are said"

expect_exit 3 "a log without losses exits 3" -- "$FERRY" -C "$p" compare loss "$d/gpu.log" "$d/empty.log"
one_line "$work/err" "no losses: one line"
expect_grep "empty.log: no loss values" "$work/err" "no losses: names the file"
# deep in folders named in Chinese (a path of over 1 kB): the line still names the whole
# file and ends with the reason, in valid UTF-8
deep="$d"
for i in $(seq 1 40); do deep="$deep/训练日志目录第${i}层"; done
mkdir -p "$deep" && cp "$d/empty.log" "$deep/empty.log"
expect_exit 3 "a log without losses deep in Chinese folders exits 3" -- "$FERRY" -C "$p" compare loss "$d/gpu.log" "$deep/empty.log"
one_line "$work/err" "the long path's error is one line"
expect_grep "第40层/empty.log: no loss values" "$work/err" "the long path's error names the whole file and the reason"
python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$work/err" \
	&& ok "the long path's error is valid UTF-8" || fail "the long path's error is valid UTF-8"
expect_exit 3 "a binary log exits 3" -- "$FERRY" -C "$p" compare loss "$d/binary.log" "$d/gpu.log"
expect_grep "binary.log" "$work/err" "binary log named"
expect_exit 3 "a missing input exits 3" -- "$FERRY" -C "$p" compare loss "$d/gpu.log" nosuch
expect_grep "nosuch: no such artifact id, artifact label or file" "$work/err" "missing input named"
# a label that names only an artifact of another kind (a benchmark labelled gpu) is no
# dump: said so, rather than the benchmark read as a dump.json
printf '{"schema":"ferry-bench/1","label":"gpu","metrics":{"accuracy":0.761}}\n' >"$work/gpu_bench.json"
"$FERRY" -C "$p" ingest bench "$work/gpu_bench.json" --label benchonly >/dev/null 2>&1
expect_exit 3 "a label of a benchmark is no dump" -- "$FERRY" -C "$p" compare dump benchonly "$d/gpu.log"
one_line "$work/err" "the other kind: one line"
expect_grep "benchonly: no dump artifact has this label (artifact [0-9]* labelled so is a bench)" "$work/err" "the line names the label and what it labels"
expect_exit 2 "unknown comparison is a usage error" -- "$FERRY" -C "$p" compare weights a b
expect_exit 2 "--format csv is for dumps" -- "$FERRY" -C "$p" compare loss gpu npu --format csv
expect_exit 2 "--threads must be a number" -- "$FERRY" -C "$p" compare dump a b --threads x
expect_exit 2 "--dtype-b names bfloat16 only" -- "$FERRY" -C "$p" compare dump a b --dtype-b f32
expect_grep "dtype-b f32" "$work/err" "the bad override is named"
expect_exit 2 "--dtype-a is for dumps" -- "$FERRY" -C "$p" compare loss a b --dtype-a bf16

# --- .npy tensors ---
python3 - "$d" <<'EOF'
import math, os, struct, sys
d = sys.argv[1]
def save(path, descr, shape, values, fortran=False):
    dims = "".join("%d, " % s for s in shape) if len(shape) != 1 else "%d," % shape[0]
    hdr = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (descr, fortran, dims)
    hdr += " " * (64 - (10 + len(hdr) + 1) % 64) + "\n"
    code = {"f2": "e", "f4": "f", "f8": "d", "i4": "i", "i8": "q"}[descr[1:]]
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode("latin1"))
        f.write(struct.pack(descr[0] + code * len(values), *values))
n = 300000  # larger than one chunk
a = [math.sin(i * 0.001) for i in range(n)]
save(d + "/a.npy", "<f4", (300, 1000), a)
save(d + "/a_be64.npy", ">f8", (300, 1000), [x * (1 + 1e-6) for x in a])
save(d + "/a_half.npy", "<f2", (300, 1000), a)
save(d + "/neg.npy", "<f4", (300, 1000), [-x for x in a])
save(d + "/a_fortran.npy", "<f4", (300, 1000), a, fortran=True)
save(d + "/a_t.npy", "<f4", (1000, 300), a)
with open(d + "/a.npy", "rb") as f:
    data = f.read()
with open(d + "/trunc.npy", "wb") as f:
    f.write(data[: len(data) - 10])
with open(d + "/badhead.npy", "wb") as f:
    f.write(b"\x93NUMPY\x01\x00\x40\x00{'descr': '<f4', 'fortran_order': False, 'shape': (3,x), }     \n")
# msprobe-style dumps: dump.json + dump_tensor_data/*.npy; the NPU diverges from relu on
names = ["Functional.linear.0.forward.output.0", "Functional.relu.0.forward.output.0", "Functional.linear.1.forward.output.0"]
for side in ("gpu", "npu"):
    root = "%s/%s_dump/step0/rank" % (d, side)
    os.makedirs(root + "/dump_tensor_data")
    data = {}
    for k, nm in enumerate(names):
        vals = [math.cos(i * 0.1 + k) for i in range(64)]
        if side == "npu" and k >= 1:
            vals = [v + (0.5 if i % 3 == 0 else 0) for i, v in enumerate(vals)]
        save(root + "/dump_tensor_data/" + nm + ".npy", "<f4", (8, 8), vals)
        entry = nm.rsplit(".output.", 1)[0]
        data[entry] = {"input_args": [], "output": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [8, 8],
                       "Max": max(vals), "Min": min(vals), "Mean": sum(vals) / 64, "Norm": math.sqrt(sum(v * v for v in vals)),
                       "requires_grad": False, "data_name": nm + ".npy"}]}
    import json
    with open(root + "/dump.json", "w") as f:
        json.dump({"task": "tensor", "level": "L1", "framework": "pytorch", "dump_data_dir": root + "/dump_tensor_data", "data": data}, f)
    # a statistics-only copy whose tensors would be .pt files
    sroot = "%s/%s_stats" % (d, side)
    os.makedirs(sroot)
    for e in data.values():
        e["output"][0]["data_name"] = e["output"][0]["data_name"].replace(".npy", ".pt")
    with open(sroot + "/dump.json", "w") as f:
        json.dump({"task": "statistics", "level": "L1", "framework": "pytorch", "data": data}, f)
EOF

expect_exit 0 "identical-up-to-rounding tensors pass" -- "$FERRY" -C "$p" compare dump "$d/a.npy" "$d/a_be64.npy" --threads 2
expect_grep "verdict: PASS" "$work/out" "dump text verdict"
expect_exit 0 "float16 against float32 passes" -- "$FERRY" -C "$p" compare dump "$d/a.npy" "$d/a_half.npy"
expect_exit 1 "opposite tensors fail" -- "$FERRY" -C "$p" compare dump "$d/a.npy" "$d/neg.npy" --format json
one_line "$work/err" "dump failure: one line"
python3 - "$work/out" <<'EOF' && ok "dump JSON: cosine -1, first diverging" || fail "dump JSON"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["pairs"][0]
assert d["verdict"] == "fail" and abs(p["cosine"] + 1) < 1e-9 and p["elements"] == 300000, p
assert d["first_diverging"]["name"] == "a" and len(d["a"]["sha256"]) == 64
EOF
expect_exit 1 "different shapes are not compared" -- "$FERRY" -C "$p" compare dump "$d/a.npy" "$d/a_t.npy"
expect_exit 3 "a truncated .npy exits 3" -- "$FERRY" -C "$p" compare dump "$d/a.npy" "$d/trunc.npy"
one_line "$work/err" "truncated .npy: one line"
expect_grep "trunc.npy: truncated .npy" "$work/err" "truncated .npy named"
expect_exit 3 "a corrupt .npy header exits 3" -- "$FERRY" -C "$p" compare dump "$d/badhead.npy" "$d/a.npy"
expect_grep "badhead.npy: corrupt .npy header" "$work/err" "corrupt header named"
expect_exit 3 "Fortran against C order is refused" -- "$FERRY" -C "$p" compare dump "$d/a.npy" "$d/a_fortran.npy"
one_line "$work/err" "memory order: one line"
expect_grep "Fortran" "$work/err" "memory order says why"

expect_exit 1 "msprobe dumps: divergence found" -- "$FERRY" -C "$p" compare dump "$d/gpu_dump" "$d/npu_dump"
expect_grep "first diverging layer: Functional.relu.0.forward" "$work/out" "first diverging layer named"
expect_grep "first diverging layer Functional.relu.0.forward" "$work/err" "error line names the layer"
expect_exit 1 "msprobe dumps as CSV" -- "$FERRY" -C "$p" compare dump "$d/gpu_dump/step0/rank/dump.json" "$d/npu_dump" --format csv --threads 1
n=$(wc -l <"$work/out")
[ "$n" -eq 4 ] && ok "CSV lists every pair (header + 3)" || fail "CSV has $n lines"
expect_grep "^0,Functional.linear.0.forward,Functional.linear.0.forward.output.0,tensor," "$work/out" "CSV row in execution order"

"$FERRY" -C "$p" ingest dump "$d/gpu_stats/dump.json" --label gpu-dump >/dev/null 2>&1
# statistics alone cannot fail a pair: msprobe's rule makes a difference over 50 % of the
# greater of its two values a warning to double-check (a mean near zero is no evidence of a failure)
expect_exit 0 "statistics-only dumps by label: warnings, not failures" -- "$FERRY" -C "$p" compare dump gpu-dump "$d/npu_stats"
expect_grep "pairs to double-check" "$work/out" "statistics differences are named as warnings"
expect_grep " warn " "$work/out" "the pair is marked warn"
expect_grep "tensors were not read" "$work/out" "statistics mode says tensors were not read"
expect_grep "\.pt files" "$work/out" "statistics mode says why"

expect_exit 0 "compare dump --output FILE" -- "$FERRY" -C "$p" compare dump "$d/a.npy" "$d/a_be64.npy" --format json --output "$work/cmp.json"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/cmp.json" && ok "--output wrote JSON" || fail "--output file"

# every comparison is an audit event with the inputs' hashes and the verdict
n=$(sqlite3 "$p/.ferry/engagement.db" "SELECT count(*) FROM audit WHERE payload LIKE '%\"kind\":\"compare\"%'")
[ "$n" -ge 12 ] && ok "comparisons recorded in the audit chain ($n)" || fail "only $n compare events"
sqlite3 "$p/.ferry/engagement.db" "SELECT payload FROM audit WHERE payload LIKE '%\"kind\":\"compare\"%' ORDER BY seq DESC LIMIT 1" >"$work/ev"
expect_grep '"verdict":"pass"' "$work/ev" "event carries the verdict"
expect_grep '"sha256":"[0-9a-f]\{64\}"' "$work/ev" "event carries the inputs' hashes"
expect_exit 0 "chain intact after comparisons" -- "$FERRY" -C "$p" verify

# a FIFO (or a device) given as a loss log is refused, not read until killed
mkfifo "$work/fifo"
printf 'step 1 loss 2.0\n' >"$work/one.log"
expect_exit 3 "a FIFO as a loss log is refused" -- timeout 20 "$FERRY" -C "$p" compare loss "$work/one.log" "$work/fifo"
expect_grep "fifo: not a regular file" "$work/err" "the FIFO refusal names the file"

finish
