#!/bin/sh
# ferry ingest run-log and tune.run_log on logs of a real (CPU) torch run with the error
# blocks of failing NPU runs (tests/fixtures/runlog, made by make_run_logs.py): each
# failure class is found with its line number and cause, the clean run gives no finding,
# a 200 MB log is scanned whole within the time limit.
. "$(dirname "$0")/lib.sh"
fx=$top/tests/fixtures/runlog
p=$work/p
make_project "$p"
"$FERRY" init "$p" >/dev/null 2>&1 || fail "init"

expect_exit 0 "ingest the clean run" -- "$FERRY" -C "$p" ingest run-log "$fx/clean.log" --label clean
expect_exit 0 "check on the clean run" -- "$FERRY" -C "$p" check --plugin tune.run_log --format json
if grep -q "run-log 'clean'" "$work/out"; then fail "the clean run gives a finding"; else ok "the clean run gives no finding"; fi

for l in npu_op hccl import nan leftovers setup; do
	expect_exit 0 "ingest $l" -- "$FERRY" -C "$p" ingest run-log "$fx/$l.log" --label "$l"
done
expect_exit 2 "an unknown kind is a usage error" -- "$FERRY" -C "$p" ingest run-logs "$fx/clean.log"
printf 'a\0b\n' >"$work/bin.log"
expect_exit 3 "a binary file is refused" -- "$FERRY" -C "$p" ingest run-log "$work/bin.log"
one_line "$work/err" "the refusal is one line"

expect_exit 0 "check tune.run_log" -- "$FERRY" -C "$p" check --plugin tune.run_log
out=$work/out
cp "$out" "$work/diag.txt"
# label, line, words of the cause
while IFS='|' read -r label line words; do
	expect_grep "run-log '$label' (artifact [0-9]*) line $line: .*$words" "$work/diag.txt" "$label line $line: $words"
done <<'LIST'
npu_op|15|no NPU kernel for this operator.*aten::isin
npu_op|16|aclnn operator call failed.*aclnnEqScalar
npu_op|17|no compiled kernel.*Equal
npu_op|23|asynchronously
npu_op|29|ran out of device memory
hccl|14|HCCL call failed
hccl|16|HCCP process could not start
hccl|18|RoCE link error
hccl|19|collective timed out
import|9|built for another torch
nan|13|loss became NaN
nan|19|overflows on the NPU
nan|20|CANN error E39999 from an AI CPU operator
nan|21|AI CPU failed
leftovers|20|still calls CUDA.*Torch not compiled with CUDA enabled
leftovers|43|checkpoint saved on the GPU is loaded without map_location
leftovers|52|NCCL backend
leftovers|58|float64 tensor
setup|8|dynamic loader did not find.*libascend_hal.so
setup|16|no NPU kernel in this torch_npu.*aten::nonzero
LIST
expect_grep "expandable_segments:True" "$work/diag.txt" "the out-of-memory fix gives the allocator setting"
expect_grep "ASCEND_LAUNCH_BLOCKING=1" "$work/diag.txt" "asynchronous errors get the ASCEND_LAUNCH_BLOCKING advice"

# a log from a host set to zh_CN.GBK: Python wrote it in GBK, one line in UTF-8; the
# findings quote its lines in readable UTF-8, with their line numbers
g=$work/g
make_project "$g"
"$FERRY" init "$g" >/dev/null 2>&1
expect_exit 0 "ingest the GBK log" -- "$FERRY" -C "$g" ingest run-log "$fx/gbk.log" --label gbk
expect_exit 0 "check the GBK log" -- "$FERRY" -C "$g" check --plugin tune.run_log
expect_grep "run-log 'gbk' (artifact [0-9]*) line 11: .*loss became NaN.*第 9 步  loss: nan  学习率: 0.5" "$work/out" \
	"the NaN loss line is quoted in Chinese, as written"
expect_grep "line 22: .*libascend_hal.so.*依赖库/libascend_hal.so: cannot open shared object file" "$work/out" \
	"the missing library's line is quoted with its Chinese path"
if grep -q "$(printf '\357\277\275')" "$work/out"; then fail "a GBK line is shown with U+FFFD"; else ok "no GBK byte is shown as U+FFFD"; fi
expect_exit 0 "findings as JSON" -- "$FERRY" -C "$g" findings --format json
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["findings"]; assert any("第 9 步" in f["message"] for f in d)' "$work/out"; then
	ok "the stored finding holds the decoded text"
else fail "the stored finding does not hold the decoded text"; fi

# a warning the log also holds (an operator falling back to the CPU) does not explain
# the crash: the traceback's own error is quoted as the run's failure
w=$work/warnfirst
make_project "$w"
"$FERRY" init "$w" >/dev/null 2>&1
cat >"$work/warnfirst.log" <<'LOG'
[W compiler_depend.ts:51] Warning: CAUTION: The operator 'aten::_unique2' is not currently supported on the NPU backend and will fall back to run on the CPU. This may have performance implications. (function npu_cpu_fallback)
Traceback (most recent call last):
  File "train.py", line 40, in <module>
    x = x.view(8, -1)
RuntimeError: shape '[8, -1]' is invalid for input of size 10
LOG
expect_exit 0 "ingest a crash after a fallback warning" -- "$FERRY" -C "$w" ingest run-log "$work/warnfirst.log" --label wf
"$FERRY" -C "$w" findings --plugin tune.run_log --format json >"$work/wf.json"
python3 - "$work/wf.json" <<'PY' && ok "the crash is an error besides the fallback warning" || fail "a fallback warning hid the crash"
import json, sys
fs = json.load(open(sys.argv[1]))["findings"]
errs = [f for f in fs if f["severity"] == "error"]
assert any("Python exception" in f["message"] and "line 5" in f["message"] and "RuntimeError: shape" in f["message"] for f in errs), [(f["severity"], f["message"][:90]) for f in fs]
assert any(f["severity"] == "warning" and "aten::_unique2" in f["message"] for f in fs), fs
PY

# a run ended by chained exceptions (a real torch run, chained.log): the finding quotes the
# last exception, the one that ended the run, with its line number, not the traceback's
# header nor the exceptions it was raised while handling; of its message of three lines,
# the line naming the exception
c=$work/chained
make_project "$c"
"$FERRY" init "$c" >/dev/null 2>&1
expect_exit 0 "ingest the chained run" -- "$FERRY" -C "$c" ingest run-log "$fx/chained.log" --label chained
"$FERRY" -C "$c" findings --plugin tune.run_log --format json >"$work/chained.json"
last=$(grep -n '^RuntimeError: emergency checkpoint' "$fx/chained.log" | cut -d: -f1)
python3 - "$work/chained.json" "$last" <<'PY' && ok "the exception that ended the run is quoted with its line ($last)" || fail "chained exceptions: the wrong line is quoted"
import json, sys
fs = [f for f in json.load(open(sys.argv[1]))["findings"] if f["severity"] == "error"]
assert len(fs) == 1, [f["message"] for f in fs]
m = fs[0]["message"]
assert "line %s:" % sys.argv[2] in m and '"RuntimeError: emergency checkpoint of step 4 failed:"' in m, m
assert "the last of the log's 3 tracebacks" in m, m
PY
FERRY_LANG=zh_CN "$FERRY" -C "$c" findings --plugin tune.run_log >"$work/chained.zh"
expect_grep "第 $last 行" "$work/chained.zh" "the Chinese finding gives the same line"

# a launcher that prefixes each rank's lines ("[rank1]: "): the exception is the first line
# after the frames that has the header's prefix and no indent
r=$work/ranks
make_project "$r"
"$FERRY" init "$r" >/dev/null 2>&1
sed -n '/^Traceback/,$p' "$fx/chained.log" | sed 's/^/[rank1]: /' >"$work/ranks.log"
expect_exit 0 "ingest a rank-prefixed run" -- "$FERRY" -C "$r" ingest run-log "$work/ranks.log" --label ranks
last=$(grep -n '^\[rank1\]: RuntimeError: emergency checkpoint' "$work/ranks.log" | cut -d: -f1)
"$FERRY" -C "$r" findings --plugin tune.run_log >"$work/ranks.txt"
expect_grep "line $last: .*\"\[rank1\]: RuntimeError: emergency checkpoint of step 4 failed:\"" "$work/ranks.txt" \
	"behind a rank prefix, the exception that ended the run is quoted ($last)"

# Python's own output, made here: an exception raised in __del__ at shutdown prints a
# traceback after the one that ended the run ("Exception ignored in"), which must not be
# quoted as the end; a KeyboardInterrupt is an interrupted run, not an unknown failure
x=$work/ends
make_project "$x"
"$FERRY" init "$x" >/dev/null 2>&1
printf 'class Holder:\n    def __del__(self):\n        raise OSError("cleanup failed in __del__")\nh = Holder()\nraise RuntimeError("the step failed")\n' >"$work/ign.py"
python3 "$work/ign.py" >"$work/ign.log" 2>&1
printf 'raise KeyboardInterrupt\n' >"$work/ki.py"
python3 "$work/ki.py" >"$work/ki.log" 2>&1
"$FERRY" -C "$x" ingest run-log "$work/ign.log" --label ign >/dev/null 2>&1 || fail "ingest ign.log"
"$FERRY" -C "$x" ingest run-log "$work/ki.log" --label ki >/dev/null 2>&1 || fail "ingest ki.log"
"$FERRY" -C "$x" findings --plugin tune.run_log >"$work/ends.txt"
expect_grep "run-log 'ign' (artifact [0-9]*) line 4: .*\"RuntimeError: the step failed\"" "$work/ends.txt" "a traceback printed after 'Exception ignored in' is not the end of the run"
if grep -q "OSError: cleanup failed" "$work/ends.txt"; then fail "the ignored exception is quoted"; else ok "the ignored exception is not quoted"; fi
expect_grep "run-log 'ki' (artifact [0-9]*) line 4: the run was interrupted before it finished" "$work/ends.txt" "KeyboardInterrupt is an interrupted run"

# the evidence scripts: one checkpoint writing the three files, byte for byte
expect_exit 0 "the evidence scripts are proposed" -- "$FERRY" -C "$p" check --plugin tune.evidence_scripts
expect_grep "scripts/msprobe_config.json" "$work/out" "the msprobe configuration is proposed"
expect_grep "scripts/npu_profile.py" "$work/out" "the profiler helper is proposed"
expect_exit 0 "fix writes them" -- "$FERRY" -C "$p" fix --plugin tune.evidence_scripts --yes
expect_grep "1 checkpoint" "$work/out" "one checkpoint"
expect_exit 0 "diff HEAD" -- "$FERRY" -C "$p" diff HEAD
expect_grep "+++ b/scripts/msprobe_config.json" "$work/out" "the checkpoint holds the msprobe configuration"
expect_grep "+++ b/scripts/npu_profile.py" "$work/out" "the checkpoint holds the profiler helper"
expect_grep "+++ b/scripts/first_step.py" "$work/out" "the checkpoint holds the first-step test"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["task"]=="tensor" and d["level"]=="L1" and d["step"]==[1] and d["dump_path"] and "scope" in d["tensor"]' "$p/scripts/msprobe_config.json"; then
	ok "the msprobe configuration is valid JSON with task, level, step, dump_path and scope"
else fail "the msprobe configuration"; fi
grep '^+' "$work/out" | grep -v '^+++' | sed 's/^+//' >"$work/added"
cat "$p/scripts/first_step.py" "$p/scripts/msprobe_config.json" "$p/scripts/npu_profile.py" >"$work/files"
if cmp -s "$work/added" "$work/files"; then ok "the files are exactly what the checkpoint added"; else fail "the files differ from the checkpoint"; fi
if python3 -c 'import ast,sys; ast.parse(open(sys.argv[1]).read())' "$p/scripts/npu_profile.py"; then ok "the profiler helper is valid Python"; else fail "the profiler helper does not parse"; fi
expect_grep "torch_npu.profiler.tensorboard_trace_handler" "$p/scripts/npu_profile.py" "the helper uses torch_npu's profiler"
expect_exit 0 "check again" -- "$FERRY" -C "$p" check --plugin tune.evidence_scripts
if grep -q "scripts/" "$work/out"; then fail "written scripts are proposed again"; else ok "written scripts are not proposed again"; fi

# a 200 MB log: loss lines, a fallback warning repeated, the failure at its very end
big=$work/big.log
awk 'BEGIN { for (i = 1; i <= 2900000; i++) printf "[train] epoch 3 step %d loss: 0.%06d lr: 0.0001 throughput 812.5\n", i, i % 1000000 }' >"$big"
echo "RuntimeError: NPU out of memory. Tried to allocate 1.00 GiB (NPU 0; 29.50 GiB total capacity)" >>"$big"
n=$(wc -l <"$big")
size=$(wc -c <"$big")
[ "$size" -gt 200000000 ] && ok "the big log is over 200 MB" || fail "the big log is only $size bytes"
q=$work/q
make_project "$q"
"$FERRY" init "$q" >/dev/null 2>&1
expect_exit 0 "ingest the 200 MB log" -- "$FERRY" -C "$q" ingest run-log "$big" --label big
start=$(date +%s)
expect_exit 0 "check scans the 200 MB log" -- "$FERRY" -C "$q" check --plugin tune.run_log
secs=$(($(date +%s) - start))
[ "$secs" -lt 60 ] && ok "scanned in ${secs}s" || fail "scan took ${secs}s"
expect_grep "run-log 'big' (artifact [0-9]*) line $n: the NPU ran out" "$work/out" "the failure on the last line ($n) of the 200 MB log is found"
rm -f "$big"
finish
