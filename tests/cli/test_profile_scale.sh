#!/bin/sh
# Profiles and benchmarks at real scale: tune.profile's findings on the fixtures of
# tests/fixtures/profile (made by make_profiles.py), a ~300 MB kernel_details.csv made at
# test time analysed in bounded memory (peak RSS of the check), a trace cut short
# reporting where it stops, malformed profiles as one line naming the file, and
# ais_bench output ingested as a benchmark and held to tolerance.accuracy.
. "$(dirname "$0")/lib.sh"

fx="$top/tests/fixtures/profile"
p="$work/proj"
make_project "$p"
"$FERRY" init "$p" >/dev/null 2>&1 || fail "init"
ing() { "$FERRY" -C "$p" ingest "$@" >"$work/out" 2>"$work/err"; }
tune() { "$FERRY" -C "$p" check --plugin tune.profile --format json >"$work/tune.json" 2>"$work/err"; }
# has SUBSTRING...: a tune.profile finding holds every substring
has() {
	python3 - "$work/tune.json" "$@" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
fs = doc["findings"] if isinstance(doc, dict) else doc
want = sys.argv[2:]
for f in fs:
    text = (f.get("message") or "") + " | " + (f.get("suggestion") or "")
    if all(w in text for w in want):
        sys.exit(0)
sys.exit(1)
EOF
}
check_has() {
	desc=$1
	shift
	if has "$@"; then ok "$desc"; else
		fail "$desc: no finding with $*"
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [print("     |", f["message"][:300]) for f in (d["findings"] if isinstance(d, dict) else d)]' "$work/tune.json" | head -12
	fi
}

# ---- the fixtures --------------------------------------------------------------
ing profile "$fx/kernel_details.csv" --label kd || fail "ingest kernel_details.csv: $(cat "$work/err")"
tune
check_has "kernel_details: top operator types by device time" "'kd'" "MatMulV2" "% (16 calls)"
check_has "kernel_details: the AI CPU operator with the advisor's advice" "AI CPU" "NonZero (8 calls" "float32"
check_has "kernel_details: communication share (HCCL)" "communication kernels (HCCL) take"
check_has "kernel_details: idle time between device operators" "idle between operators"
check_has "kernel_details: rank 1 slower than the median by 20 %" "device 1 takes" "20.0 % more than the median"
check_has "kernel_details: a quoted name with a comma and a quote is one kernel" 'Add, "fused" residual'

p2="$work/proj2"
make_project "$p2"
"$FERRY" init "$p2" >/dev/null 2>&1
p_save=$p
p=$p2
ing profile "$fx/trace_view.json" --label tv || fail "ingest trace_view.json: $(cat "$work/err")"
ing profile "$fx/op_summary_0.csv" --label opsum || fail "ingest op_summary_0.csv: $(cat "$work/err")"
ing profile "$fx/torch_cpu_trace.json" --label cpu || fail "ingest torch_cpu_trace.json: $(cat "$work/err")"
tune
check_has "trace: operator types from the trace's arguments" "'tv'" "MatMulV2" "SoftmaxV2"
check_has "trace: a host-bound step named with its wait" "'tv'" "1 of 3 steps" "ProfilerStep#2 waits"
check_has "op_summary (msprof headers): AI CPU operator" "'opsum'" "NonZero (3 calls"
check_has "torch.profiler CPU trace: host operators reported as such" "'cpu'" "by host (a CPU-only trace" "aten::"
p=$p_save

# ---- malformed input: one line naming the file, never a crash ----------------------
printf 'just,some\nwords,here\n' >"$work/odd.csv"
ing profile "$work/odd.csv" --label odd
"$FERRY" -C "$p" check --plugin tune.profile --format json >"$work/tune.json" 2>"$work/err"
rc=$?
[ "$rc" -le 1 ] && ok "an unrecognised CSV does not fail the check (exit $rc)" || fail "unrecognised CSV: exit $rc"
check_has "an unrecognised CSV is one finding naming the file" "could not be analysed" "odd.csv" "does not recognise"
printf '[{"ph":"X","name":"a","dur":1}' >"$work/nolist.json"
printf '[oops' >"$work/broken.json"
expect_exit 3 "a trace broken before its first event is refused" -- "$FERRY" -C "$p" ingest profile "$work/broken.json"
one_line "$work/err" "the refusal is one line"
expect_grep "broken.json" "$work/err" "the refusal names the file"
# a kernel_details.csv holding only its header measured nothing: judged, it would pass
printf 'Step Id,Device_id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Num,OP State\n' >"$work/kernel_details.csv"
expect_exit 3 "a profile table with no rows is refused" -- "$FERRY" -C "$p" ingest profile "$work/kernel_details.csv"
expect_grep "kernel_details.csv: a CSV table without data rows" "$work/err" "the refusal names the file and the reason"

# steps far slower than the median are reported with what they point to: here the device
# waits for the host in the slow step (Python's GC, a loader falling behind); the first
# step, which compiles, is left out
python3 - "$work/jitter.json" <<'PY'
import json, sys
ev, ts = [], 0
for i, d in enumerate([900, 400, 410, 395, 405, 1300, 400, 398]):
    ev.append({"name": "ProfilerStep#%d" % (i + 1), "ph": "X", "cat": "cpu_op", "pid": 100, "tid": 1, "ts": ts, "dur": d})
    ev.append({"name": "MatMulV2", "ph": "X", "cat": "kernel", "pid": 200, "tid": 1, "ts": ts + 5,
               "dur": 350 if i == 5 else d * 0.95, "args": {"Task Type": "AI_CORE"}})
    ts += d
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
expect_exit 0 "a profile with one slow step is ingested" -- "$FERRY" -C "$p" ingest profile "$work/jitter.json" --label jitter
"$FERRY" -C "$p" findings --plugin tune.profile --format json >"$work/jit.json"
python3 - "$work/jit.json" <<'PY' && ok "the slow step is named against the median, with the GC advice" || fail "step jitter not reported"
import json, sys
fs = [f for f in json.load(open(sys.argv[1]))["findings"] if "median step" in f["message"] and "'jitter'" in f["message"]]
assert len(fs) == 1, [f["message"] for f in json.load(open(sys.argv[1]))["findings"]]
m, s = fs[0]["message"], fs[0]["suggestion"]
assert ": 1 of 8;" in m and "ProfilerStep#6 1300 us" in m and "ProfilerStep#1" not in m, m
assert "gc.set_threshold(700, 10, 5)" in s and "waits for the host" in s, s
PY

# the same on a real trace: torch's profiler over eight CPU training steps, the sixth held
# up on the host (tests/fixtures/profile/make_profiles.py); a trace without device
# operators cannot say whether host or device held it up, and must not claim either
expect_exit 0 "torch's real trace with a slow step is ingested" -- "$FERRY" -C "$p" ingest profile "$fx/torch_jitter_trace.json" --label realjit
"$FERRY" -C "$p" findings --plugin tune.profile --format json >"$work/jit.json"
python3 - "$work/jit.json" <<'PY' && ok "the real slow step is named, and the CPU-only trace claims no cause" || fail "jitter on torch's real trace"
import json, sys
fs = [f for f in json.load(open(sys.argv[1]))["findings"] if "median step" in f["message"] and "'realjit'" in f["message"]]
assert len(fs) == 1, [f["message"] for f in json.load(open(sys.argv[1]))["findings"]]
m, s = fs[0]["message"], fs[0]["suggestion"]
assert ": 1 of 8;" in m and "slowest: ProfilerStep#6 " in m, m
assert "cannot tell whether the host or the device" in s and "device is busy" not in s, s
PY

# ---- a trace cut short: aggregates of what was read, and where reading stopped ------
head -c 2500 "$fx/trace_view.json" >"$work/cut.json"
p3="$work/proj3"
make_project "$p3"
"$FERRY" init "$p3" >/dev/null 2>&1
"$FERRY" -C "$p3" ingest profile "$work/cut.json" --label cut >"$work/out" 2>"$work/err" || fail "ingest of a cut trace: $(cat "$work/err")"
"$FERRY" -C "$p3" check --plugin tune.profile --format json >"$work/tune.json" 2>"$work/err"
check_has "a cut trace says where reading stopped" "'cut'" "reading stopped at byte" "truncated"
check_has "a cut trace still gives the operators read before the cut" "'cut'" "top operator types" "MatMulV2"

# ---- ~300 MB kernel_details.csv: bounded memory ----------------------------------------
# Memory must not grow with the file: the check of 300 MB peaks within a few MiB of the
# check of 30 MB, and under 64 MiB (under the sanitizers, whose shadow memory and freed-
# block quarantine add a constant share, under 96 MiB).
big="$work/big"
mkdir -p "$big/small"
python3 "$fx/make_profiles.py" big "$big/kernel_details.csv" 300
python3 "$fx/make_profiles.py" big "$big/small/kernel_details.csv" 30
p4="$work/proj4"
make_project "$p4"
"$FERRY" init "$p4" >/dev/null 2>&1
"$FERRY" -C "$p4" ingest profile "$big/kernel_details.csv" --label big >"$work/out" 2>"$work/err" ||
	fail "ingest of a 300 MB kernel_details.csv: $(cat "$work/err")"
p5="$work/proj5"
make_project "$p5"
"$FERRY" init "$p5" >/dev/null 2>&1
"$FERRY" -C "$p5" ingest profile "$big/small/kernel_details.csv" --label big >"$work/out" 2>"$work/err" ||
	fail "ingest of a 30 MB kernel_details.csv: $(cat "$work/err")"
if [ -x /usr/bin/time ]; then
	/usr/bin/time -f '%M' -o "$work/rss" "$FERRY" -C "$p5" check --plugin tune.profile --format json >/dev/null 2>&1
	small=$(tail -n 1 "$work/rss")
	/usr/bin/time -f '%M' -o "$work/rss" "$FERRY" -C "$p4" check --plugin tune.profile --format json >"$work/tune.json" 2>"$work/err"
	rss=$(tail -n 1 "$work/rss")
	# what the test proves is that memory does not grow with the file (300 MB within 16 MiB
	# of 30 MB); the cap is a sanity bound. Under the sanitizers, whose shadow memory and
	# quarantine alone take about 100 MiB whatever the input, it is that much higher.
	limit=65536
	[ -n "${FERRY_SANITIZED:-}" ] && limit=163840
	if [ "$rss" -lt "$limit" ] && [ "$rss" -lt $((small + 16384)) ]; then
		ok "300 MB kernel_details.csv analysed in $rss KiB peak RSS (30 MB: $small KiB; limit $((limit / 1024)) MiB)"
	else
		fail "300 MB kernel_details.csv: peak RSS $rss KiB (30 MB: $small KiB; limit $((limit / 1024)) MiB)"
	fi
else
	"$FERRY" -C "$p4" check --plugin tune.profile --format json >"$work/tune.json" 2>"$work/err"
	echo "note: /usr/bin/time missing: peak RSS not measured"
fi
check_has "the 300 MB file's operators are all read (no size skip)" "'big'" "MatMulV2" "(1096000 calls)"
check_has "the 300 MB file's AI CPU operator" "'big'" "AI CPU" "NonZero (548000 calls"
if grep -q "too large\|skipped" "$work/tune.json"; then fail "the large profile was skipped"; else ok "no size skip"; fi
rm -rf "$big"

# ---- benchmarks: ais_bench / msit output, tolerance.accuracy ---------------------------
p5="$work/proj5"
make_project "$p5"
"$FERRY" init "$p5" >/dev/null 2>&1
"$FERRY" -C "$p5" ingest bench "$fx/ais_bench_summary.json" --label om >"$work/out" 2>"$work/err" &&
	ok "an ais_bench summary.json is a benchmark" || fail "ais_bench summary.json refused: $(cat "$work/err")"
"$FERRY" -C "$p5" ingest bench "$fx/ais_bench_stdout.log" --label om-log >"$work/out" 2>"$work/err" &&
	ok "ais_bench's printed Performance Summary is a benchmark" || fail "ais_bench log refused: $(cat "$work/err")"
printf 'hello\n' >"$work/notbench.log"
expect_exit 3 "a text that is no benchmark is refused" -- "$FERRY" -C "$p5" ingest bench "$work/notbench.log"
one_line "$work/err" "the bench refusal is one line"
printf '{"schema":"ferry-bench/1","label":"gpu","hardware":"NVIDIA A100","precision":"fp16","metrics":{"accuracy":0.761,"throughput":1200}}' >"$work/gpu.json"
"$FERRY" -C "$p5" ingest bench "$work/gpu.json" --label gpu >/dev/null 2>&1
"$FERRY" -C "$p5" config throughput.target_pct 90 >/dev/null 2>&1
"$FERRY" -C "$p5" check --plugin infer-optimize.acceptance --format json >"$work/acc.json" 2>"$work/err"
if grep -q "reaches 1018.33" "$work/acc.json"; then ok "the ais_bench throughput is set against the GPU baseline"; else
	fail "ais_bench throughput not judged"; head -c 600 "$work/acc.json"; fi
printf '{"schema":"ferry-bench/1","label":"npu","hardware":"Ascend 910B","precision":"fp16","metrics":{"accuracy":0.741,"throughput":1100}}' >"$work/npu.json"
"$FERRY" -C "$p5" ingest bench "$work/npu.json" --label npu >/dev/null 2>&1
"$FERRY" -C "$p5" config tolerance.accuracy 0.005 >/dev/null 2>&1
"$FERRY" -C "$p5" check --plugin infer-optimize.acceptance --fail-on error --format json >"$work/acc.json" 2>"$work/err"
rc=$?
[ "$rc" -eq 1 ] && ok "an accuracy drop beyond tolerance.accuracy fails the check (exit 1)" || fail "accuracy drop: exit $rc"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); fs=d["findings"] if isinstance(d,dict) else d; sys.exit(0 if any(f["severity"]=="error" and "tolerance.accuracy" in f["message"] for f in fs) else 1)' "$work/acc.json"; then
	ok "the accuracy drop is an error finding naming tolerance.accuracy"
else fail "no error finding for the accuracy drop"; fi

finish
