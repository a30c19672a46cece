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

# exception groups, written here by Python 3.11 (/usr/bin/python3): the run ends with the
# group's sub-exceptions, each matched against the known failures and quoted with its line,
# never with the group's header; nesting and Python's truncation notes are followed
py=/usr/bin/python3
gx=$work/groups
make_project "$gx"
"$FERRY" init "$gx" >/dev/null 2>&1
cat >"$work/grp.py" <<'PY'
def step(rank):
    if rank == 0:
        raise RuntimeError("NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 29.50 GiB total capacity)")
    if rank == 1:
        raise ValueError("batch of rank 1 has 7 samples, expected 8")
    raise RuntimeError("call aclnnEqScalar failed, detail:EZ9999: Inner Error!")
errors = []
for rank in range(3):
    try:
        step(rank)
    except Exception as e:
        errors.append(e)
print("step 0 done", flush=True)
raise ExceptionGroup("3 of 3 ranks failed", [errors[0], ExceptionGroup("ranks 1-2", errors[1:])])
PY
$py "$work/grp.py" >"$work/grp.log" 2>&1
cat >"$work/wide.py" <<'PY'
raise BaseExceptionGroup("loaders stopped", [OSError("shard unreadable: checksum mismatch") for _ in range(17)] + [KeyboardInterrupt()])
PY
$py "$work/wide.py" >"$work/wide.log" 2>&1
cat >"$work/deep.py" <<'PY'
e = ValueError("leaf 11 levels down")
for i in range(11):
    e = ExceptionGroup("level %d" % i, [e])
raise e
PY
$py "$work/deep.py" >"$work/deep.log" 2>&1
grep -q 'ExceptionGroup: 3 of 3 ranks failed (2 sub-exceptions)' "$work/grp.log" && ok "Python printed an exception group" || fail "no exception group in grp.log"
for l in grp wide deep; do
	"$FERRY" -C "$gx" ingest run-log "$work/$l.log" --label "$l" >/dev/null 2>&1 || fail "ingest $l.log"
done
"$FERRY" -C "$gx" findings --plugin tune.run_log >"$work/groups.txt"
oom=$(grep -n '| RuntimeError: NPU out of memory' "$work/grp.log" | cut -d: -f1)
val=$(grep -n '| ValueError: batch of rank 1' "$work/grp.log" | cut -d: -f1)
ez=$(grep -n '| RuntimeError: call aclnnEqScalar failed' "$work/grp.log" | cut -d: -f1)
expect_grep "run-log 'grp' (artifact [0-9]*) line $oom: the NPU ran out of device memory.*\"RuntimeError: NPU out of memory" "$work/groups.txt" \
	"an NPU OOM inside a group is found on its exception line ($oom)"
expect_grep "run-log 'grp' (artifact [0-9]*) line $ez: an aclnn operator call failed.*(aclnnEqScalar) — \"RuntimeError: call aclnnEqScalar" "$work/groups.txt" \
	"an EZ9999 inside a nested group is found on its line ($ez)"
expect_grep "run-log 'grp' (artifact [0-9]*) line $val: the run ended with a Python exception that none.*\"ValueError: batch of rank 1 has 7 samples, expected 8\" (sub-exception 2.1 of the exception group" "$work/groups.txt" \
	"the unexplained sub-exception of a nested group is quoted with its line ($val) and its place"
if grep -q 'ExceptionGroup: \|Exception Group Traceback' "$work/groups.txt"; then fail "a group's header is quoted as the cause"; else ok "no group header is quoted"; fi
wide=$(grep -n '| OSError: shard unreadable' "$work/wide.log" | head -1 | cut -d: -f1)
expect_grep "run-log 'wide' (artifact [0-9]*) line $wide: .*\"OSError: shard unreadable: checksum mismatch\" (sub-exception 1 of .*14 more of its sub-exceptions end the same way" "$work/groups.txt" \
	"the sub-exceptions of a BaseExceptionGroup are quoted once, with how many more end alike"
expect_grep "run-log 'wide' (artifact [0-9]*) line [0-9]*: Python printed only part of the exception group .*\"and 3 more exceptions\"" "$work/groups.txt" \
	"the sub-exceptions past max_group_width are said to be left out"
deep=$(grep -n 'max_group_depth is 10' "$work/deep.log" | cut -d: -f1)
expect_grep "run-log 'deep' (artifact [0-9]*) line $deep: Python printed only part of the exception group .*max_group_depth is 10" "$work/groups.txt" \
	"a group nested past max_group_depth is said to be cut"
grep -B1 "run-log 'deep'" "$work/groups.txt" | grep -q "error" && ok "a group none of whose sub-exceptions was printed is an error" \
	|| fail "a group none of whose sub-exceptions was printed is no error"
grep -B1 "and 3 more exceptions" "$work/groups.txt" | grep -q "info" && ok "sub-exceptions left out of a group otherwise printed are info" \
	|| fail "the left-out sub-exceptions of a printed group are not info"
FERRY_LANG=zh_CN "$FERRY" -C "$gx" findings --plugin tune.run_log >"$work/groups.zh"
expect_grep "第 $val 行.*异常组" "$work/groups.zh" "the sub-exception finding is in Chinese"

# sys.exit("message") prints the message alone and exits with status 1: the log's last line,
# when it reads as an error and nothing else explains the end, is quoted as the reason the
# run stopped; sys.exit(2) prints nothing, and a last line that is no error is not a finding
sx=$work/exits
make_project "$sx"
"$FERRY" init "$sx" >/dev/null 2>&1
printf 'import sys\nprint("loading config", flush=True)\nprint("step 1 loss 0.53", flush=True)\nsys.exit("ERROR: data path /data/imagenet/train does not exist")\n' >"$work/exitmsg.py"
$py "$work/exitmsg.py" >"$work/exitmsg.log" 2>&1
[ $? -eq 1 ] && ok "sys.exit(message) exits with status 1" || fail "sys.exit(message) status"
printf 'import sys\nprint("loading config", flush=True)\nprint("step 1 loss 0.53", flush=True)\nsys.exit(2)\n' >"$work/exit2.py"
$py "$work/exit2.py" >"$work/exit2.log" 2>&1
printf 'print("epoch 3 loss 0.21", flush=True)\nraise SystemExit("Training finished: 3 epochs")\n' >"$work/exitdone.py"
$py "$work/exitdone.py" >"$work/exitdone.log" 2>&1
for l in exitmsg exit2 exitdone; do
	"$FERRY" -C "$sx" ingest run-log "$work/$l.log" --label "$l" >/dev/null 2>&1 || fail "ingest $l.log"
done
"$FERRY" -C "$sx" findings --plugin tune.run_log >"$work/exits.txt"
expect_grep "run-log 'exitmsg' (artifact [0-9]*) line 3: the log ends with an error message and no traceback.*\"ERROR: data path /data/imagenet/train does not exist\"" "$work/exits.txt" \
	"the message of sys.exit is quoted as the end of the run, line 3"
if grep -q "'exit2'" "$work/exits.txt"; then fail "sys.exit(2) after ordinary lines gives a finding"; else ok "sys.exit(2) gives no finding"; fi
if grep -q "'exitdone'" "$work/exits.txt"; then fail "a last line that is no error gives a finding"; else ok "a last line that reads as no error gives no finding"; fi
# clean runs whose last line names an error word only to say there is none: load_state_dict's
# result printed by the real torch, a count of zero errors, an identifier
if $py -c 'import torch' 2>/dev/null; then
	printf 'import torch\nm = torch.nn.Linear(2, 2)\nsd = m.state_dict()\ndel sd["bias"]\nprint("epoch 3 loss 0.21", flush=True)\nprint(m.load_state_dict(sd, strict=False))\n' >"$work/keys.py"
	$py "$work/keys.py" >"$work/keys.log" 2>&1
	grep -q "missing_keys=\['bias'\]" "$work/keys.log" || fail "torch printed no missing_keys line: $(tail -1 "$work/keys.log")"
	"$FERRY" -C "$sx" ingest run-log "$work/keys.log" --label keys >/dev/null 2>&1 || fail "ingest keys.log"
fi
printf 'print("epoch 3 loss 0.21", flush=True)\nprint("validation done: 0 errors, no failures", flush=True)\n' >"$work/zero.py"
$py "$work/zero.py" >"$work/zero.log" 2>&1
printf 'print("epoch 3 loss 0.21", flush=True)\nprint("final error_rate=0.031 fail_count=0", flush=True)\n' >"$work/ident.py"
$py "$work/ident.py" >"$work/ident.log" 2>&1
for l in zero ident; do
	"$FERRY" -C "$sx" ingest run-log "$work/$l.log" --label "$l" >/dev/null 2>&1 || fail "ingest $l.log"
done
"$FERRY" -C "$sx" findings --plugin tune.run_log >"$work/exits.txt"
for l in keys zero ident; do
	if grep -q "'$l'" "$work/exits.txt"; then fail "a clean last line ($l) is read as an exit message"; grep "'$l'" "$work/exits.txt" | head -2 | sed 's/^/     | /'
	else ok "a clean last line ($l) is no exit message"; fi
done
FERRY_LANG=zh_CN "$FERRY" -C "$sx" findings --plugin tune.run_log >"$work/exits.zh"
expect_grep "第 3 行：日志以一条错误信息结束.*data path /data/imagenet/train does not exist" "$work/exits.zh" "the exit-message finding is in Chinese"
# an "Exception ignored in" at shutdown after the message: the ignored traceback is no end
printf 'import sys\nclass Holder:\n    def __del__(self):\n        raise OSError("cannot close the dataset file")\nh = Holder()\nsys.exit("fatal: checkpoint dir is not writable")\n' >"$work/exitdel.py"
$py "$work/exitdel.py" >"$work/exitdel.log" 2>&1
"$FERRY" -C "$sx" ingest run-log "$work/exitdel.log" --label exitdel >/dev/null 2>&1 || fail "ingest exitdel.log"
"$FERRY" -C "$sx" findings --plugin tune.run_log >"$work/exits.txt"
if grep -q "cannot close the dataset file" "$work/exits.txt"; then fail "the ignored exception at shutdown is quoted as the end"; else ok "the ignored exception at shutdown is not quoted as the end"; fi

# runs that died on a signal print no Python traceback (tests/fixtures/runlog, real runs of
# make_run_logs.py): a segfault with faulthandler's block and bash's "Segmentation fault", a
# SIGKILL (the OOM killer's) with bash's last line "Killed", and both under torchrun; each is
# an error quoting its line, and a sign-off of tune is refused while one is open
k=$work/signals
make_project "$k"
"$FERRY" init "$k" >/dev/null 2>&1
for l in segfault killed torchrun_kill torchrun_segv; do
	"$FERRY" -C "$k" ingest run-log "$fx/$l.log" --label "$l" >/dev/null 2>&1 || fail "ingest $l.log"
done
"$FERRY" -C "$k" findings --plugin tune.run_log >"$work/signals.txt"
seg=$(grep -n '^Fatal Python error: Segmentation fault' "$fx/segfault.log" | cut -d: -f1)
kil=$(wc -l <"$fx/killed.log")
tk=$(grep -n 'failed (exitcode: -9)' "$fx/torchrun_kill.log" | cut -d: -f1)
ts=$(grep -n '^Fatal Python error: Segmentation fault' "$fx/torchrun_segv.log" | cut -d: -f1)
expect_grep "run-log 'segfault' (artifact [0-9]*) line $seg: the process crashed in native code.*innermost Python frame: File \".*\", line [0-9]* in string_at — \"Fatal Python error: Segmentation fault\" (and 1 more line like it)" "$work/signals.txt" \
	"a segfault is found on faulthandler's line ($seg), with the innermost frame and bash's line counted"
expect_grep "run-log 'killed' (artifact [0-9]*) line $kil: the process was killed with SIGKILL.*OOM killer.*— \"Killed\"\.$" "$work/signals.txt" \
	"bash's last line Killed ($kil) is an OOM kill"
if grep -q "Killed 3 stale workers" "$work/signals.txt"; then fail "a sentence saying Killed is quoted"; else ok "a sentence saying Killed is not quoted"; fi
expect_grep "run-log 'torchrun_kill' (artifact [0-9]*) line $tk: the process was killed with SIGKILL.*failed (exitcode: -9).*(and 2 more lines like it)" "$work/signals.txt" \
	"torchrun's exitcode -9 and SIGKILL lines are an OOM kill (line $tk)"
expect_grep "run-log 'torchrun_segv' (artifact [0-9]*) line $ts: the process crashed in native code.*(and 3 more lines like it)" "$work/signals.txt" \
	"torchrun's exitcode -11 and SIGSEGV lines are a native crash (line $ts)"
if grep -q "'torchrun_.*ChildFailedError" "$work/signals.txt"; then fail "the agent's ChildFailedError is quoted as the cause"; else ok "the agent's ChildFailedError is not quoted as the cause"; fi
"$FERRY" -C "$k" findings --plugin tune.run_log --format json >"$work/signals.json"
python3 - "$work/signals.json" <<'PY' && ok "the four deaths are four errors" || fail "signal findings are not four errors"
import json, sys
fs = json.load(open(sys.argv[1]))["findings"]
assert len(fs) == 4 and all(f["severity"] == "error" for f in fs), [(f["severity"], f["message"][:80]) for f in fs]
PY
FERRY_LANG=zh_CN "$FERRY" -C "$k" findings --plugin tune.run_log >"$work/signals.zh"
expect_grep "第 $kil 行.*被 SIGKILL 杀死.*OOM killer" "$work/signals.zh" "the OOM-kill finding is in Chinese"
expect_grep "第 $seg 行.*致命信号崩溃.*最内层的 Python 栈帧" "$work/signals.zh" "the native-crash finding is in Chinese"
sign_through "$k" assess design environment adapt
"$FERRY" -C "$k" check --phase tune >/dev/null 2>&1
expect_exit 1 "sign-off of tune refused while the crashes are open" -- "$FERRY" -C "$k" signoff tune
expect_grep "tune.run_log: run-log 'killed'" "$work/err" "the sign-off names the OOM kill"

# the other fatal signals as bash reports them for a script's command (made here, without
# faulthandler: bash's line is all the log says), subprocess's "died with <Signals.SIGKILL: 9>",
# and logs that only say the words in sentences, which give no finding
o=$work/sigs
make_project "$o"
"$FERRY" init "$o" >/dev/null 2>&1
for sig in SIGABRT SIGBUS SIGILL SIGFPE; do
	printf '%s\n' 'echo "[train] epoch 0 step 1 loss: 0.6900"' \
		"$py -c 'import os, signal; os.kill(os.getpid(), signal.$sig)'" 'echo "exit status $?"' >"$work/$sig.sh"
	(cd "$work" && bash "$sig.sh" >"$work/$sig.log" 2>&1)
	grep -q "$sig.sh: line 2: " "$work/$sig.log" || fail "bash did not report $sig: $(cat "$work/$sig.log")"
	"$FERRY" -C "$o" ingest run-log "$work/$sig.log" --label "$sig" >/dev/null 2>&1 || fail "ingest $sig.log"
done
$py -c 'import subprocess, sys; subprocess.run([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"], check=True)' >"$work/died.log" 2>&1
grep -q 'died with <Signals.SIGKILL: 9>' "$work/died.log" || fail "subprocess did not say died with: $(tail -1 "$work/died.log")"
printf 'print("Killed 3 stale workers of the previous run", flush=True)\nprint("Segmentation fault handler installed; Aborted runs are retried", flush=True)\nprint("Training finished: 3 epochs", flush=True)\nprint("Killed 2 stale workers", flush=True)\n' >"$work/prose.py"
$py "$work/prose.py" >"$work/prose.log" 2>&1
for l in died prose; do
	"$FERRY" -C "$o" ingest run-log "$work/$l.log" --label "$l" >/dev/null 2>&1 || fail "ingest $l.log"
done
"$FERRY" -C "$o" findings --plugin tune.run_log >"$work/sigs.txt"
for sig in SIGABRT SIGBUS SIGILL SIGFPE; do
	expect_grep "run-log '$sig' (artifact [0-9]*) line 2: the process crashed in native code.*\"$sig.sh: line 2: [0-9]* " "$work/sigs.txt" \
		"bash's report of $sig in a script is a native crash"
done
died=$(grep -n 'died with <Signals.SIGKILL: 9>' "$work/died.log" | cut -d: -f1)
expect_grep "run-log 'died' (artifact [0-9]*) line $died: the process was killed with SIGKILL" "$work/sigs.txt" \
	"subprocess's died with <Signals.SIGKILL: 9> is an OOM kill (line $died)"
if grep -q "run-log 'died'.*Python exception that none" "$work/sigs.txt"; then fail "the CalledProcessError is quoted as unexplained"; else ok "the CalledProcessError is explained by the kill"; fi
if grep -q "'prose'" "$work/sigs.txt"; then fail "sentences naming Killed, Segmentation fault, Aborted give a finding"; grep "'prose'" "$work/sigs.txt" | sed 's/^/     | /'
else ok "sentences naming Killed, Segmentation fault, Aborted give no finding"; fi

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
