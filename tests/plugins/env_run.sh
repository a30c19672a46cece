#!/bin/sh
# Environment-phase tests: the probe script (app/probe.sh) run on this machine, against
# fake npu-smi samples and fake install trees; bad probe files refused by ingest with
# nothing stored; golden findings of the environment checks for recorded probes
# (old_driver is healthy_910b with CANN 8.5.0 installed over its 24.1 driver; adapter_torch
# has torch 2.7.1, which the Torchvision Adapter its nms needs is not built for)
# (tests/plugins/environment/<case>/: probe.json, project/, config, expected.json); and
# the generated setup script written by `ferry fix`. Exits non-zero on any failure.
#
# expected.json is a list of {plugin, file, line, severity, contains: [substrings of the
# message + suggestion]}; the set of (plugin, file, line) must match exactly (compare.py).
set -u
cd "$(dirname "$0")/../.."
root=$(pwd)
ferry=${FERRY:-$root/ferry}
probe=$root/app/probe.sh
here=$root/tests/plugins/environment
export FERRY_ACTOR="env-tests <tests@example.invalid>"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ferry-env.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
. "$root/tests/plugins/lib.sh"

now() { date +%s; }

# ---- 1. the probe on this machine ------------------------------------------------
t0=$(now)
sh "$probe" >"$tmp/local.json" 2>"$tmp/local.err"
rc=$?
t1=$(now)
check "probe: exits 0 on this machine" [ "$rc" -eq 0 ]
check "probe: finishes in under 10 s ($((t1 - t0)) s)" [ $((t1 - t0)) -lt 10 ]
check "probe: prints valid JSON" python3 -c 'import json, sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$tmp/local.json"
check "probe: one document with every section, NPU absent here" python3 - "$tmp/local.json" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
assert d["schema"] == "ferry-env-probe/1"
for k in ("host", "python", "cann", "driver", "npu", "env"):
    assert isinstance(d[k], dict), k
assert isinstance(d["missing"], list)
assert d["host"]["arch"] == os.uname().machine
if not os.path.exists("/dev/davinci0"):
    assert d["npu"]["chips"] == [] and d["npu"]["devices"] == [], d["npu"]
    assert d["npu"]["npu_smi_available"] is False and "npu-smi" in d["missing"]
PY
mkdir -p "$tmp/p0"
"$ferry" init "$tmp/p0" --client t >/dev/null 2>&1
check "probe: its output is accepted by ferry ingest" sh -c "'$ferry' -C '$tmp/p0' ingest env-probe '$tmp/local.json' >/dev/null"

# ---- 2. npu-smi samples ------------------------------------------------------------
mkdir -p "$tmp/bin"
for s in 910b a3 310p; do
	printf '#!/bin/sh\n[ "$1" = info ] && cat "%s"\n' "$here/smi/$s.txt" >"$tmp/bin/npu-smi"
	chmod +x "$tmp/bin/npu-smi"
	PATH="$tmp/bin:$PATH" sh "$probe" >"$tmp/smi-$s.json" 2>/dev/null
	check "probe: npu-smi sample $s parsed into the expected chips" python3 - "$tmp/smi-$s.json" "$here/smi/$s.chips.json" <<'PY'
import json, sys
got = json.load(open(sys.argv[1], encoding="utf-8"))["npu"]
want = json.load(open(sys.argv[2], encoding="utf-8"))
if got["chips"] != want:
    print(json.dumps(got["chips"], indent=1))
    sys.exit(1)
assert got["npu_smi_available"] is True and got["npu_smi_status"] == 0
assert got["raw"] == open(sys.argv[2].replace(".chips.json", ".txt"), encoding="utf-8").read().rstrip("\n")
PY
done
# every fixture's chips are what the probe parses from its raw npu-smi text
for f in "$here"/*/probe.json; do
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1], encoding="utf-8"))["npu"]["raw"]; print(r if r else "", end="")' "$f" >"$tmp/raw.txt"
	[ -s "$tmp/raw.txt" ] || continue
	printf '#!/bin/sh\n[ "$1" = info ] && cat "%s"\n' "$tmp/raw.txt" >"$tmp/bin/npu-smi"
	PATH="$tmp/bin:$PATH" sh "$probe" >"$tmp/reparse.json" 2>/dev/null
	check "fixture: $(basename "$(dirname "$f")") chips match its raw npu-smi text" python3 -c '
import json, sys
a = json.load(open(sys.argv[1], encoding="utf-8"))["npu"]["chips"]
b = json.load(open(sys.argv[2], encoding="utf-8"))["npu"]["chips"]
sys.exit(0 if a == b else 1)' "$f" "$tmp/reparse.json"
done
printf '#!/bin/sh\nsleep 30\n' >"$tmp/bin/npu-smi"
t0=$(now)
PATH="$tmp/bin:$PATH" sh "$probe" >"$tmp/hang.json" 2>/dev/null
t1=$(now)
check "probe: a hanging npu-smi is cut off ($((t1 - t0)) s)" python3 - "$tmp/hang.json" "$((t1 - t0))" <<'PY'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
assert int(sys.argv[2]) < 15
assert d["npu"]["npu_smi_status"] == 124 and d["npu"]["chips"] == [], d["npu"]
PY
printf '#!/bin/sh\necho "dcmi module initialize failed. ret is -8005" >&2\nexit 1\n' >"$tmp/bin/npu-smi"
PATH="$tmp/bin:$PATH" sh "$probe" >"$tmp/smifail.json" 2>/dev/null
check "probe: a failing npu-smi is recorded with its message" python3 - "$tmp/smifail.json" <<'PY'
import json, sys
n = json.load(open(sys.argv[1], encoding="utf-8"))["npu"]
assert n["npu_smi_status"] == 1 and "dcmi module initialize failed" in n["raw"] and n["chips"] == [], n
PY

# ---- 3. fake install trees ---------------------------------------------------------
arch=$(uname -m)
fr="$tmp/root1"
mkdir -p "$fr/usr/local/Ascend/ascend-toolkit/latest/$arch-linux" "$fr/usr/local/Ascend/driver" "$fr/usr/local/Ascend/firmware" \
	"$fr/usr/local/Ascend/nnal/atb/latest" "$fr/dev" "$fr/etc"
printf 'package_name=Ascend-cann-toolkit\nversion=8.1.RC1\narch=%s\n' "$arch" \
	>"$fr/usr/local/Ascend/ascend-toolkit/latest/$arch-linux/ascend_toolkit_install.info"
: >"$fr/usr/local/Ascend/ascend-toolkit/set_env.sh"
printf 'Version=24.1.0.3\r\ncompatible_version_fw=[7.0.0,7.5.99]\r\npackage_version=24.1.0.3\r\n' >"$fr/usr/local/Ascend/driver/version.info"
printf 'Version="7.5.0.1.129"\npackage_version=24.1.0.3\n' >"$fr/usr/local/Ascend/firmware/version.info"
mkdir -p "$fr/usr/local/Ascend/ascend-toolkit/latest/bin" "$fr/usr/local/Ascend/ascend-toolkit/latest/tools/profiler/bin"
printf '#!/bin/sh\n' >"$fr/usr/local/Ascend/ascend-toolkit/latest/bin/atc"
printf '#!/bin/sh\n' >"$fr/usr/local/Ascend/ascend-toolkit/latest/tools/profiler/bin/msprof"
chmod +x "$fr/usr/local/Ascend/ascend-toolkit/latest/bin/atc" "$fr/usr/local/Ascend/ascend-toolkit/latest/tools/profiler/bin/msprof"
: >"$fr/usr/local/Ascend/nnal/atb/set_env.sh"
printf 'version=8.1.RC1\n' >"$fr/usr/local/Ascend/nnal/atb/latest/version.info"
printf 'Driver_Install_Path_Param=/usr/local/Ascend\n' >"$fr/etc/ascend_install.info"
for d in davinci0 davinci1 davinci2 davinci_manager devmm_svm hisi_hdc; do : >"$fr/dev/$d"; done
mkdir -p "$tmp/tools"
printf '#!/bin/sh\n' >"$tmp/tools/aoe"
chmod +x "$tmp/tools/aoe"
env -u ASCEND_TOOLKIT_HOME -u ASCEND_HOME_PATH PATH="$tmp/tools:$PATH" FERRY_PROBE_ROOT="$fr" HOME="$tmp/home" sh "$probe" >"$tmp/root1.json" 2>/dev/null
check "probe: version files of the ascend-toolkit layout, firmware range, tools" python3 - "$tmp/root1.json" "$fr" <<'PY'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
r = sys.argv[2]
tk = d["cann"]["toolkit"]
assert tk["version"] == "8.1.RC1" and tk["path"] == r + "/usr/local/Ascend/ascend-toolkit/latest", tk
assert tk["set_env"] == r + "/usr/local/Ascend/ascend-toolkit/set_env.sh", tk
assert d["cann"]["nnal"]["version"] == "8.1.RC1", d["cann"]
assert d["cann"]["set_env_sourced"] is False
assert d["driver"]["version"] == "24.1.0.3" and d["driver"]["firmware"] == "7.5.0.1.129", d["driver"]
assert d["driver"]["firmware_compatible"] == "[7.0.0,7.5.99]" and d["driver"]["firmware_package_version"] == "24.1.0.3", d["driver"]
t = d["cann"]["tools"]
assert t["atc"]["path"] == tk["path"] + "/bin/atc" and t["atc"]["on_path"] is False, t
assert t["msprof"]["path"] == tk["path"] + "/tools/profiler/bin/msprof", t
assert t["aoe"]["path"].endswith("/tools/aoe") and t["aoe"]["on_path"] is True, t
assert d["npu"]["devices"] == ["davinci0", "davinci1", "davinci2"], d["npu"]["devices"]
assert all(d["npu"]["control_devices"].values())
PY
fr="$tmp/root2"
mkdir -p "$fr/usr/local/Ascend/cann/$arch-linux"
printf 'version=9.0.0\n' >"$fr/usr/local/Ascend/cann/$arch-linux/ascend_toolkit_install.info"
printf 'version=9.0.0\n' >"$fr/usr/local/Ascend/cann/$arch-linux/ascend_ops_install.info"
: >"$fr/usr/local/Ascend/cann/set_env.sh"
tk="$fr/usr/local/Ascend/cann"
env FERRY_PROBE_ROOT="$fr" HOME="$tmp/home" ASCEND_TOOLKIT_HOME="$tk" ASCEND_HOME_PATH="$tk" \
	LD_LIBRARY_PATH="/opt/x:$tk/lib64" sh "$probe" >"$tmp/root2.json" 2>/dev/null
check "probe: version files of the cann (8.5+) layout, set_env.sh sourced" python3 - "$tmp/root2.json" "$tk" <<'PY'
import json, sys
c = json.load(open(sys.argv[1], encoding="utf-8"))["cann"]
assert c["toolkit"]["version"] == "9.0.0" and c["toolkit"]["set_env"] == sys.argv[2] + "/set_env.sh", c
assert c["kernels"]["version"] == "9.0.0", c
assert c["set_env_sourced"] is True, c
PY

# ---- 4. escaping and missing tools -------------------------------------------------
weird=$(printf 'q"uote\\back\ttab\001ctl\177del \303\251t\303\251 \344\270\255 \360\237\230\200 bad\377\300x end')
HCCL_WEIRD="$weird" HCCL_NL='line1
line2
' sh "$probe" >"$tmp/esc.json" 2>/dev/null
check "probe: strings escaped (quotes, backslashes, control bytes, newlines, UTF-8, invalid bytes)" \
	env HCCL_WEIRD="$weird" python3 - "$tmp/esc.json" <<'PY'
import json, os, sys
raw = open(sys.argv[1], "rb").read()
d = json.loads(raw.decode("utf-8"))  # strict: the document is valid UTF-8
want = os.environb[b"HCCL_WEIRD"].decode("utf-8", "replace")
got = d["env"]["HCCL_WEIRD"]
# each invalid byte becomes one U+FFFD
assert got == want, (got, want)
assert d["env"]["HCCL_NL"] == "line1\nline2\n", repr(d["env"]["HCCL_NL"])
PY
mkdir -p "$tmp/minbin"
for c in sh awk date uname getconf grep df sed head sort env id dirname cat; do
	p=$(command -v "$c") && ln -sf "$p" "$tmp/minbin/$c"
done
env -i HOME="$tmp/home" PATH="$tmp/minbin" "$tmp/minbin/sh" "$probe" >"$tmp/min.json" 2>/dev/null
check "probe: missing timeout, python and npu-smi are recorded, not fatal" python3 - "$tmp/min.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
for m in ("timeout", "python3", "npu-smi"):
    assert m in d["missing"], d["missing"]
assert d["python"]["version"] is None and d["python"]["packages"]["torch"] is None
PY

# ---- 5. bad probe files are refused, nothing stored ----------------------------------
mkdir -p "$tmp/bad"
"$ferry" init "$tmp/bad" --client t >/dev/null 2>&1
printf '{"schema": "ferry-env-probe/1", "host": {' >"$tmp/malformed.json"
head -c 700 "$here/healthy_910b/probe.json" >"$tmp/truncated.json"
head -c 400 "$ferry" >"$tmp/binary.json"
printf '{"schema": "ferry-bench/1", "metrics": {}}' >"$tmp/otherschema.json"
printf '{"schema": "ferry-env-probe/1", "host": {}, "python": {}}' >"$tmp/nosection.json"
: >"$tmp/empty.json"
printf '{"schema": "ferry-env-probe/1", "host": {}, "python": {}, "npu": {"chips": "none"}, "env": {}}' >"$tmp/badchips.json"
for f in malformed truncated binary otherschema nosection empty badchips; do
	"$ferry" -C "$tmp/bad" ingest env-probe "$tmp/$f.json" >"$tmp/bad.out" 2>"$tmp/bad.err"
	rc=$?
	lines=$(wc -l <"$tmp/bad.err")
	if [ "$rc" -eq 3 ] && [ "$lines" -eq 1 ] && grep -q "$f.json" "$tmp/bad.err" && [ ! -s "$tmp/bad.out" ]; then
		ok "ingest: $f probe refused with exit 3 and one line ($(cat "$tmp/bad.err"))"
	else
		bad "ingest: $f probe refused with exit 3 and one line (rc $rc, $lines lines: $(head -c 300 "$tmp/bad.err"))"
	fi
done
n=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM artifacts').fetchone()[0])" "$tmp/bad/.ferry/engagement.db")
files=$(find "$tmp/bad/.ferry/artifacts" -type f 2>/dev/null | wc -l)
check "ingest: nothing stored after refusals (artifacts rows $n, files $files)" sh -c "[ '$n' = 0 ] && [ '$files' -eq 0 ]"

# ---- 6. golden findings --------------------------------------------------------------
for dir in "$here"/*/; do
	case=$(basename "$dir")
	[ -f "$dir/expected.json" ] && [ -d "$dir/project" ] || continue
	work="$tmp/case-$case"
	if engagement "$dir" "$work" &&
		"$ferry" -C "$work" check --phase environment --format json >"$tmp/$case.json" 2>"$tmp/check.log" &&
		python3 tests/plugins/compare.py "$dir/expected.json" "$tmp/$case.json" --phase environment &&
		python3 tests/plugins/contains.py "$dir/expected.json" "$tmp/$case.json"; then
		ok "golden: environment/$case"
	else
		cat "$tmp/check.log"
		bad "golden: environment/$case"
	fi
done

# ---- 7. the generated setup script -------------------------------------------------
work="$tmp/case-healthy_910b"
if "$ferry" -C "$work" fix --plugin environment.setup_script --yes >"$tmp/fix.log" 2>&1; then
	ok "setup script: ferry fix writes it"
else
	cat "$tmp/fix.log"
	bad "setup script: ferry fix writes it"
fi
s="$work/scripts/npu_env.sh"
check "setup script: valid sh that sources the detected set_env.sh" sh -n "$s"
check "setup script: detected path, chips, HCCL timeout, allocator, task queue, sources" python3 - "$s" <<'PY'
import sys
t = open(sys.argv[1], encoding="utf-8").read()
for want in ('NPU_ENV_CANN_SET_ENV="${NPU_ENV_CANN_SET_ENV:-/usr/local/Ascend/ascend-toolkit/set_env.sh}"',
             '. "$NPU_ENV_CANN_SET_ENV"',
             'export ASCEND_RT_VISIBLE_DEVICES="${ASCEND_RT_VISIBLE_DEVICES:-0,1}"',
             'export PYTORCH_NPU_ALLOC_CONF="${PYTORCH_NPU_ALLOC_CONF:-expandable_segments:True}"',
             'export TASK_QUEUE_ENABLE="${TASK_QUEUE_ENABLE:-2}"',
             'export HCCL_CONNECT_TIMEOUT="${HCCL_CONNECT_TIMEOUT:-1200}"',
             'export ASCEND_GLOBAL_LOG_LEVEL="${ASCEND_GLOBAL_LOG_LEVEL:-3}"',
             "detected on the probed host"):
    assert want in t, want
assert "HCCL_EXEC_TIMEOUT=" not in t.replace("# export HCCL_EXEC_TIMEOUT", "")  # single node: no multi-node settings
lines = t.splitlines()
for i, l in enumerate(lines):
    if l.startswith("export "):  # every setting is explained, with its source, just above
        block = "\n".join(lines[max(0, i - 8):i])
        assert "# Source:" in block and ("# " + l.split()[1].split("=")[0] + ":") in block, l
assert "CUDA_" not in t and "NCCL_" not in t  # nothing the assess checks would flag
PY
check "setup script: sourcing it sets the variables" sh -c ". '$s' 2>/dev/null; [ \"\$TASK_QUEUE_ENABLE\" = 2 ] && [ \"\$ASCEND_RT_VISIBLE_DEVICES\" = 0,1 ]"
"$ferry" -C "$work" check --phase environment --format json >"$tmp/after.json" 2>/dev/null
check "setup script: the finding is gone after the fix" python3 - "$tmp/after.json" <<'PY'
import json, sys
got = json.load(open(sys.argv[1], encoding="utf-8"))["findings"]
assert not [f for f in got if f["plugin"] == "environment.setup_script" and f["status"] == "open"], got
PY
check "setup script: the fix is a checkpoint" sh -c "'$ferry' -C '$work' log | grep -q environment.setup_script"
lw="$tmp/case-large_cluster"
"$ferry" -C "$lw" fix --plugin environment.setup_script --yes >/dev/null 2>&1
check "setup script: a 72B plan on 64 cards turns feature-value detection on, a 1.5B plan does not" python3 - "$lw/scripts/npu_env.sh" "$s" <<'PY'
import sys
big, small = (open(p, encoding="utf-8").read() for p in sys.argv[1:3])
assert 'export NPU_ASD_CONFIG="${NPU_ASD_CONFIG:-enable:true,with_checksum:true}"' in big, big
assert "NPU_ASD_ENABLE=2" in big and "NPU_ASD" not in small
PY
before=$(cat "$tmp/case-no_npu/scripts/npu_env.sh")
"$ferry" -C "$tmp/case-no_npu" fix --plugin environment.setup_script --yes >/dev/null 2>&1
check "setup script: an existing scripts/npu_env.sh is left alone" [ "$before" = "$(cat "$tmp/case-no_npu/scripts/npu_env.sh")" ]

# ---- 8. CLI: probe-script and ingest --local -----------------------------------------
"$ferry" probe-script >"$tmp/printed.sh" 2>"$tmp/ps.err"
check "cli: ferry probe-script prints the embedded probe" cmp -s "$tmp/printed.sh" "$probe"
mkdir -p "$tmp/loc"
"$ferry" init "$tmp/loc" --client t >/dev/null 2>&1
"$ferry" -C "$tmp/loc" ingest env-probe --local >"$tmp/loc.out" 2>&1
check "cli: ferry ingest env-probe --local stores a probe of this machine" python3 - "$tmp/loc/.ferry/engagement.db" <<'PY'
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute("SELECT kind FROM artifacts").fetchall()
assert rows == [("env-probe",)], rows
PY

zh_check "in Chinese, every finding of the environment cases reads in Chinese" "$tmp"/case-*

# ---- 9. fact tables ------------------------------------------------------------------
check "data: every Ascend variable and install path names its source" python3 - <<'PY'
import json
ev = json.load(open("plugins/data/env_vars.json", encoding="utf-8"))
ep = json.load(open("plugins/data/env_paths.json", encoding="utf-8"))
for e in ev["ascend"] + ep["entries"]:
    assert isinstance(e.get("source"), str) and e["source"].strip(), e
for e in ev["ascend"]:
    assert e["when"] in ("always", "multi_card", "multi_node", "debug", "large_model", "large_cluster"), e
    if e["when"] == "large_cluster":
        assert e["min_params_b"] > 0 and e["min_cards"] > 0, e
PY

echo "environment: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
