#!/bin/sh
# Re-records the probe fixtures (tests/plugins/environment/<case>/probe.json) by running
# app/probe.sh against fake hosts: a fake install tree (FERRY_PROBE_ROOT), a fake npu-smi
# printing one of the real `npu-smi info` samples in smi/, a fake Python (FERRY_PYTHON)
# answering with fixed package versions, and a clean environment. The fake tree's prefix
# is then removed from every path and the host section is set to the case's machine.
# usage: sh tests/plugins/environment/record.sh
set -eu
cd "$(dirname "$0")/../../.."
here=tests/plugins/environment
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ferry-record.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
arch=$(uname -m)

# fake_python DIR VERSION PKGS_JSON: a Python that reports fixed versions.
fake_python() {
	mkdir -p "$1"
	cat >"$1/python3" <<PY
#!/bin/sh
echo 'FERRY-PY {"executable": "/usr/bin/python3", "implementation": "CPython", "packages": $3, "prefix": "/usr", "version": "$2", "virtualenv": false}'
PY
	chmod +x "$1/python3"
}

# fake_smi DIR SAMPLE: an npu-smi that prints the sample.
fake_smi() {
	mkdir -p "$1"
	printf '#!/bin/sh\n[ "$1" = info ] && cat "%s"\n' "$(pwd)/$here/smi/$2" >"$1/npu-smi"
	chmod +x "$1/npu-smi"
}

# toolkit ROOT LAYOUT VERSION: a CANN toolkit install with its version file and set_env.sh.
toolkit() {
	d="$1/usr/local/Ascend/$2"
	mkdir -p "$d/$arch-linux"
	printf 'package_name=Ascend-cann-toolkit\nversion=%s\ninnerversion=V100R001C21SPC001B212\narch=%s\nos=linux\npath=/usr/local/Ascend/%s/%s-linux\n' \
		"$3" "$arch" "$2" "$arch" >"$d/$arch-linux/ascend_toolkit_install.info"
	: >"$(dirname "$d")/set_env.sh"
}

driver() { # ROOT VERSION
	mkdir -p "$1/usr/local/Ascend/driver"
	printf 'Version=%s\n' "$2" >"$1/usr/local/Ascend/driver/version.info"
}

devices() { # ROOT N
	mkdir -p "$1/dev"
	i=0
	while [ "$i" -lt "$2" ]; do
		: >"$1/dev/davinci$i"
		i=$((i + 1))
	done
	: >"$1/dev/davinci_manager"
	: >"$1/dev/devmm_svm"
	: >"$1/dev/hisi_hdc"
}

# record CASE HOSTJSON [VAR=value...]: runs the probe in a clean environment.
record() {
	case=$1
	hostjson=$2
	shift 2
	root="$tmp/$case/root"
	mkdir -p "$here/$case"
	env -i HOME="$tmp/$case/home" PATH="$tmp/$case/bin:/usr/bin:/bin" FERRY_PROBE_ROOT="$root" \
		FERRY_PYTHON="$tmp/$case/bin/python3" "$@" sh app/probe.sh >"$tmp/$case.json"
	python3 - "$tmp/$case.json" "$root" "$tmp/$case" "$hostjson" "$here/$case/probe.json" <<'PY'
import json, sys
src, root, base, host, dst = sys.argv[1:]
text = open(src, encoding="utf-8").read().replace(root, "").replace(base + "/bin", "/usr/local/bin")
arch = json.loads(host).get("arch")
if arch:
    text = text.replace(json.loads(text)["host"]["arch"] + "-linux", arch + "-linux")
doc = json.loads(text)
doc["host"].update(json.loads(host))
doc["collected_at"] = "2026-11-20T09:30:00Z"
doc["probe"]["elapsed_s"] = 2
doc["probe"]["uid"] = 1000
doc["missing"] = [m for m in doc["missing"] if m not in ("lscpu",)]
with open(dst, "w", encoding="utf-8") as out:
    json.dump(doc, out, indent=1, ensure_ascii=False)
    out.write("\n")
PY
	echo "recorded $here/$case/probe.json"
}

KUNPENG='{"os": {"id": "openEuler", "version_id": "22.03", "pretty_name": "openEuler 22.03 (LTS-SP4)"}, "kernel": "5.10.0-216.0.0.115.oe2203sp4.aarch64", "arch": "aarch64", "cpu": {"model": "Kunpeng-920", "count": 192}, "mem_total_kb": 1584381952, "disk_free_kb": {"home": 512000000, "root": 96000000}, "container": false}'

# 1. A healthy Atlas A2 (910B) training host, set_env.sh sourced, HCCL timeout set.
c=healthy_910b
toolkit "$tmp/$c/root" ascend-toolkit/latest 8.1.RC1
driver "$tmp/$c/root" 24.1.0.3
devices "$tmp/$c/root" 2
fake_smi "$tmp/$c/bin" 910b.txt
fake_python "$tmp/$c/bin" 3.10.12 '{"torch": "2.1.0+cpu", "torch_npu": "2.1.0.post12", "numpy": "1.26.4", "transformers": "4.44.2", "deepspeed": null, "apex": null}'
tk=/usr/local/Ascend/ascend-toolkit/latest
record $c "$(echo "$KUNPENG" | sed 's/}$/, "hostname": "a2-node-01"}/')" \
	ASCEND_TOOLKIT_HOME="$tmp/$c/root$tk" ASCEND_HOME_PATH="$tmp/$c/root$tk" ASCEND_OPP_PATH="$tmp/$c/root$tk/opp" \
	LD_LIBRARY_PATH="$tmp/$c/root$tk/lib64:$tmp/$c/root$tk/runtime/lib64:/usr/local/Ascend/driver/lib64/common:/usr/local/Ascend/driver/lib64/driver" \
	HCCL_CONNECT_TIMEOUT=1200 ASCEND_RT_VISIBLE_DEVICES=0,1

# 2. An Atlas 300I (310P3) inference host; set_env.sh not sourced.
c=inference_310p
toolkit "$tmp/$c/root" ascend-toolkit/latest 8.0.0
driver "$tmp/$c/root" 23.0.rc3
devices "$tmp/$c/root" 1
fake_smi "$tmp/$c/bin" 310p.txt
fake_python "$tmp/$c/bin" 3.9.18 '{"torch": "2.1.0", "torch_npu": "2.1.0.post10", "numpy": "1.24.4", "onnx": "1.14.1"}'
record $c '{"os": {"id": "ubuntu", "version_id": "20.04", "pretty_name": "Ubuntu 20.04.6 LTS"}, "kernel": "5.4.0-150-generic", "arch": "x86_64", "cpu": {"model": "Intel(R) Xeon(R) Gold 6248R CPU @ 3.00GHz", "count": 96}, "mem_total_kb": 394988216, "disk_free_kb": {"home": 120000000, "root": 40000000}, "container": false, "hostname": "infer-310p-03"}'

# 3. An Atlas A3 host whose Python stack does not match its CANN; driver files differ from npu-smi.
c=mismatch_a3
toolkit "$tmp/$c/root" ascend-toolkit/latest 8.0.RC3
driver "$tmp/$c/root" 23.0.6
devices "$tmp/$c/root" 2
fake_smi "$tmp/$c/bin" a3.txt
fake_python "$tmp/$c/bin" 3.12.4 '{"torch": "2.4.0", "torch_npu": "2.1.0.post12", "numpy": "2.0.1", "deepspeed": "0.14.4"}'
tk=/usr/local/Ascend/ascend-toolkit/latest
record $c "$(echo "$KUNPENG" | sed 's/}$/, "hostname": "a3-pod-7"}/')" \
	ASCEND_TOOLKIT_HOME="$tmp/$c/root$tk" ASCEND_HOME_PATH="$tmp/$c/root$tk" ASCEND_OPP_PATH="$tmp/$c/root$tk/opp" \
	LD_LIBRARY_PATH="$tmp/$c/root$tk/lib64" ASCEND_RT_VISIBLE_DEVICES="0, 1" HCCL_CONNECT_TIMEOUT=60

# 4. A machine without NPU (a CPU box): no npu-smi, no device nodes, no CANN.
c=no_npu
mkdir -p "$tmp/$c/root" "$tmp/$c/bin"
fake_python "$tmp/$c/bin" 3.11.7 '{"torch": "2.1.0+cu121", "torch_npu": null, "numpy": "1.26.4"}'
record $c '{"os": {"id": "debian", "version_id": "12", "pretty_name": "Debian GNU/Linux 12 (bookworm)"}, "kernel": "6.1.0-18-amd64", "arch": "x86_64", "cpu": {"model": "AMD EPYC 7763 64-Core Processor", "count": 32}, "mem_total_kb": 263888000, "disk_free_kb": {"home": 80000000, "root": 80000000}, "container": true, "hostname": "gpu-dev-2"}'

# 5. Derived from case 1 (not a recorded sample): the second chip reports health Alarm,
#    in both the raw npu-smi text and the parsed chips.
python3 - "$here/healthy_910b/probe.json" "$here/unhealthy_910b/probe.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1], encoding="utf-8"))
raw = doc["npu"]["raw"].split("\n")
rows = [i for i, l in enumerate(raw) if "| OK            |" in l]
raw[rows[1]] = raw[rows[1]].replace("| OK            |", "| Alarm         |")
doc["npu"]["raw"] = "\n".join(raw)
doc["npu"]["chips"][1]["health"] = "Alarm"
doc["host"]["hostname"] = "a2-node-02"
with open(sys.argv[2], "w", encoding="utf-8") as out:
    json.dump(doc, out, indent=1, ensure_ascii=False)
    out.write("\n")
PY
echo "derived $here/unhealthy_910b/probe.json"
