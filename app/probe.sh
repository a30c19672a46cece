#!/bin/sh
# ferry environment probe: describes an Ascend NPU host as one JSON document
# (schema "ferry-env-probe/1") on standard output.
#
#   sh probe.sh > result.json             on the NPU host, as an ordinary user
#   sh probe.sh --smoke > result.json     also a smoke test: imports torch and torch_npu,
#                                         runs a matmul and a conv on the NPU and compares
#                                         them with the CPU (the only part that touches
#                                         the NPU; up to two minutes)
#   ferry ingest env-probe result.json    where ferry runs
#
# Read-only: it reads version files and /proc, and runs version queries
# (uname, df, lscpu, npu-smi info, python). It writes no file and needs no root.
# Every external command runs under a time limit when `timeout` exists; a
# missing command is listed under "missing", never fatal. Standard error
# carries nothing that ferry needs.
#
# Test hooks: FERRY_PROBE_ROOT prefixes the Ascend install paths, /etc/ascend_install.info
# and /dev (a fake file tree); FERRY_PYTHON names the Python to ask.

smoke=0
for arg in "$@"; do
	case "$arg" in
	--smoke) smoke=1 ;;
	-h | --help)
		echo "usage: sh probe.sh [--smoke] > result.json"
		exit 0
		;;
	*)
		echo "probe.sh: $arg: unknown option (usage: sh probe.sh [--smoke])" >&2
		exit 2
		;;
	esac
done

LC_ALL=C
export LC_ALL
orig_path=${PATH-}
PATH="${PATH:-/usr/bin:/bin}:/usr/local/bin:/usr/local/sbin:/usr/sbin:/sbin"
R=${FERRY_PROBE_ROOT:-}
PROBE_VERSION=1
started=$(date +%s 2>/dev/null || echo 0)
missing=""

note_missing() { # name: records a command that is not available (once)
	case " $missing " in
	*" $1 "*) ;;
	*) missing="${missing:+$missing }$1" ;;
	esac
}

have() { command -v "$1" >/dev/null 2>&1; }

if ! have awk; then
	# Without awk no string can be escaped safely: report only that.
	printf '{"schema":"ferry-env-probe/1","error":"awk not found","host":{},"python":{},"npu":{},"env":{},"missing":["awk"]}\n'
	exit 0
fi

# t SECONDS CMD...: runs CMD under a time limit when `timeout` works.
if have timeout && timeout -k 1 2 true >/dev/null 2>&1; then
	t() { timeout -k 1 "$@"; }
elif have timeout && timeout 2 true >/dev/null 2>&1; then
	t() { timeout "$@"; }
else
	note_missing timeout
	t() { shift; "$@"; }
fi

# ---- JSON output -----------------------------------------------------------------
# The escaper: backslash, quote and control characters escaped, newlines kept as \n,
# bytes that are not valid UTF-8 replaced by U+FFFD so the document is always valid.
JSON_LIB='
function jinit(   i) {
	for (i = 1; i < 256; i++) ORD[sprintf("%c", i)] = i
	HEX = "0123456789abcdef"
}
function jhex(o) { return "\\u00" substr(HEX, int(o / 16) + 1, 1) substr(HEX, o % 16 + 1, 1) }
function jesc(s,   out, n, i, c, o, need, k, o2, ok) {
	if (s !~ /[^ -~]/ && index(s, "\"") == 0 && index(s, "\\") == 0)
		return s
	out = ""
	n = length(s)
	i = 1
	while (i <= n) {
		c = substr(s, i, 1)
		o = ORD[c] + 0
		if (c == "\"") out = out "\\\""
		else if (c == "\\") out = out "\\\\"
		else if (o >= 32 && o < 127) out = out c
		else if (o == 10) out = out "\\n"
		else if (o == 9) out = out "\\t"
		else if (o == 13) out = out "\\r"
		else if (o == 8) out = out "\\b"
		else if (o == 12) out = out "\\f"
		else if ((o > 0 && o < 32) || o == 127) out = out jhex(o)
		else {
			need = 0
			if (o >= 194 && o <= 223) need = 1
			else if (o >= 224 && o <= 239) need = 2
			else if (o >= 240 && o <= 244) need = 3
			ok = need > 0 && i + need <= n
			for (k = 1; ok && k <= need; k++) {
				o2 = ORD[substr(s, i + k, 1)] + 0
				if (o2 < 128 || o2 > 191) ok = 0
			}
			if (ok) {
				o2 = ORD[substr(s, i + 1, 1)] + 0
				if ((o == 224 && o2 < 160) || (o == 237 && o2 > 159) || (o == 240 && o2 < 144) || (o == 244 && o2 > 143))
					ok = 0
			}
			if (ok) {
				out = out substr(s, i, need + 1)
				i += need
			} else
				out = out "\\ufffd"
		}
		i++
	}
	return out
}
'

# js VALUE: the JSON string literal of VALUE (exact, trailing newlines included).
js() {
	printf '%s\n' "$1" | awk "$JSON_LIB"'
BEGIN { jinit(); printf "\"" }
{ if (NR > 1) printf "\\n"; printf "%s", jesc($0) }
END { printf "\"" }'
}

# jsn VALUE: like js, but null for an empty value.
jsn() {
	if [ -n "$1" ]; then js "$1"; else printf 'null'; fi
}

# jnum VALUE: VALUE as a JSON number, or null when it is not a plain decimal number.
jnum() {
	case "$1" in
	'' | *[!0-9.]* | *.*.* | .* | *.) printf 'null' ;;
	*) printf '%s' "$1" | awk '{ if ($0 ~ /^0[0-9]/) sub(/^0+/, ""); if ($0 ~ /^\./ || $0 == "") $0 = "0" $0; printf "%s", $0 }' ;;
	esac
}

jbool() { if [ "$1" = 1 ]; then printf 'true'; else printf 'false'; fi; }

# kv KEY FILE: the value of the first KEY=value line (key case-insensitive, quotes dropped).
kv() {
	[ -r "$2" ] || return 0
	awk -v k="$1" '
		{ line = $0; sub(/\r$/, "", line); p = index(line, "=") }
		p > 0 {
			name = substr(line, 1, p - 1); gsub(/^[ \t]+|[ \t]+$/, "", name)
			if (tolower(name) == tolower(k)) {
				v = substr(line, p + 1); gsub(/^[ \t"]+|[ \t"]+$/, "", v); print v; exit
			}
		}' "$2" 2>/dev/null
}

# ---- host ------------------------------------------------------------------------
collected_at=$(date -u +%Y-%m-%dT%H:%M:%SZ 2>/dev/null)
os_id=$(kv ID /etc/os-release)
os_version=$(kv VERSION_ID /etc/os-release)
os_pretty=$(kv PRETTY_NAME /etc/os-release)
if have uname; then
	kernel=$(uname -r 2>/dev/null)
	arch=$(uname -m 2>/dev/null)
	hostname=$(uname -n 2>/dev/null)
else
	note_missing uname
	kernel=""
	arch=""
	hostname=""
fi
cpu_model=$(awk -F: '/^model name/ { sub(/^[ \t]+/, "", $2); print $2; exit }' /proc/cpuinfo 2>/dev/null)
if [ -z "$cpu_model" ]; then
	if have lscpu; then
		cpu_model=$(t 3 lscpu 2>/dev/null | awk -F: '/^Model name/ { sub(/^[ \t]+/, "", $2); print $2; exit }')
	else
		note_missing lscpu
	fi
fi
cpu_count=$(getconf _NPROCESSORS_ONLN 2>/dev/null)
[ -n "$cpu_count" ] || cpu_count=$(grep -c '^processor' /proc/cpuinfo 2>/dev/null)
mem_total_kb=$(awk '/^MemTotal:/ { print $2; exit }' /proc/meminfo 2>/dev/null)

# df_free DIR: free kilobytes of the file system holding DIR.
df_free() {
	[ -n "$1" ] && [ -d "$1" ] || return 0
	t 3 df -Pk "$1" 2>/dev/null | awk 'NR == 2 { print $4 }'
}
if have df; then
	disk_home=$(df_free "$HOME")
	disk_root=$(df_free /)
else
	note_missing df
	disk_home=""
	disk_root=""
fi
container=0
[ -f /.dockerenv ] || [ -f /run/.containerenv ] && container=1

host_json=$(printf '{"os":{"id":%s,"version_id":%s,"pretty_name":%s},"kernel":%s,"arch":%s,"hostname":%s,"cpu":{"model":%s,"count":%s},"mem_total_kb":%s,"disk_free_kb":{"home":%s,"root":%s},"container":%s}' \
	"$(jsn "$os_id")" "$(jsn "$os_version")" "$(jsn "$os_pretty")" "$(jsn "$kernel")" "$(jsn "$arch")" \
	"$(jsn "$hostname")" "$(jsn "$cpu_model")" "$(jnum "$cpu_count")" "$(jnum "$mem_total_kb")" \
	"$(jnum "$disk_home")" "$(jnum "$disk_root")" "$(jbool "$container")")

# ---- python ----------------------------------------------------------------------
# Versions come from the installed package metadata: nothing is imported, so the
# probe neither initialises the NPU nor waits for torch to load.
PY_PACKAGES="torch torch_npu torchvision torchaudio numpy apex deepspeed transformers accelerate
megatron_core mindspeed vllm vllm_ascend onnx onnxruntime decorator attrs psutil scipy sympy"
PY_PROG='
import sys, json, platform
def version(name):
    cands = [name, name.replace("_", "-"), name.replace("-", "_")]
    try:
        from importlib import metadata
    except ImportError:
        metadata = None
    for c in cands:
        try:
            if metadata is not None:
                return metadata.version(c)
            import pkg_resources
            return pkg_resources.get_distribution(c).version
        except Exception:
            pass
    return None
out = {
    "executable": sys.executable,
    "version": platform.python_version(),
    "implementation": platform.python_implementation(),
    "prefix": sys.prefix,
    "virtualenv": getattr(sys, "base_prefix", sys.prefix) != sys.prefix,
    "packages": dict((n, version(n)) for n in sys.argv[1:]),
}
sys.stdout.write("FERRY-PY " + json.dumps(out, sort_keys=True) + "\n")
'
python_json=""
py=""
for cand in "${FERRY_PYTHON:-}" python3 python; do
	[ -n "$cand" ] || continue
	if have "$cand"; then
		py=$cand
		break
	fi
done
if [ -n "$py" ]; then
	# shellcheck disable=SC2086 # the package names are split on purpose
	python_json=$(t 8 "$py" -c "$PY_PROG" $PY_PACKAGES 2>/dev/null | awk '/^FERRY-PY \{.*\}$/ { sub(/^FERRY-PY /, ""); print; exit }')
else
	note_missing python3
fi
if [ -z "$python_json" ]; then
	pkgs=""
	for p in $PY_PACKAGES; do
		pkgs="${pkgs:+$pkgs,}\"$p\":null"
	done
	if [ -n "$py" ]; then
		python_json=$(printf '{"executable":%s,"version":null,"error":"the interpreter did not answer in time or failed","packages":{%s}}' "$(js "$py")" "$pkgs")
	else
		python_json=$(printf '{"executable":null,"version":null,"packages":{%s}}' "$pkgs")
	fi
fi

# ---- smoke test (--smoke) -----------------------------------------------------------
# The one part that imports torch_npu and uses the NPU: a 256x256 matmul and a small conv
# on device 0, each compared with the CPU result (largest difference relative to the
# largest CPU value; the NPU may compute float32 matmul and conv in HF32, hence 1e-2).
SMOKE_PROG='
import json, sys, time
r = {"ran": True, "ok": False, "step": "import torch", "error": None, "versions": {}, "tests": []}
def done():
    sys.stdout.write("FERRY-SMOKE " + json.dumps(r, sort_keys=True) + "\n")
    sys.exit(0)
try:
    import torch
    r["versions"]["torch"] = torch.__version__
    r["step"] = "import torch_npu"
    import torch_npu
    r["versions"]["torch_npu"] = getattr(torch_npu, "__version__", None)
    r["step"] = "torch.npu.is_available"
    r["npu_available"] = bool(torch.npu.is_available())
    r["device_count"] = int(torch.npu.device_count()) if r["npu_available"] else 0
    if not r["npu_available"]:
        r["error"] = "torch.npu.is_available() is False"
        done()
    torch.manual_seed(0)
    import torch.nn.functional as F
    cases = [
        ("matmul", lambda a, b: a @ b, (256, 256), (256, 256)),
        ("conv2d", lambda x, w: F.conv2d(x, w, padding=1), (2, 3, 32, 32), (8, 3, 3, 3)),
    ]
    ok = True
    for name, fn, sa, sb in cases:
        r["step"] = name
        a, b = torch.randn(*sa), torch.randn(*sb)
        ref = fn(a, b)
        t0 = time.time()
        got = fn(a.to("npu:0"), b.to("npu:0")).cpu()
        secs = time.time() - t0
        err = float((got - ref).abs().max() / ref.abs().max().clamp(min=1e-30))
        passed = bool(err <= 1e-2) and got.shape == ref.shape
        ok = ok and passed
        r["tests"].append({"name": name, "max_rel_err": err, "seconds": secs, "ok": passed})
    r["step"] = "done"
    r["ok"] = ok
    if not ok:
        r["error"] = "the NPU result differs from the CPU result"
except BaseException as e:
    r["error"] = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[-1] if str(e).strip() else "")
done()
'
smoke_json=""
if [ "$smoke" = 1 ]; then
	if [ -n "$py" ]; then
		smoke_json=$(t 120 "$py" -c "$SMOKE_PROG" 2>/dev/null | awk '/^FERRY-SMOKE \{.*\}$/ { sub(/^FERRY-SMOKE /, ""); print; exit }')
		[ -n "$smoke_json" ] || smoke_json='{"ran":true,"ok":false,"step":"start","error":"the smoke test did not finish within 120 s or crashed"}'
	else
		smoke_json='{"ran":false,"ok":false,"step":"start","error":"no python3 to run the smoke test"}'
	fi
fi

# ---- CANN ------------------------------------------------------------------------
# Layouts: <=8.3 .../ascend-toolkit/latest/<arch>-linux/ascend_toolkit_install.info,
# 8.5+/9.x .../cann[-<ver>]/<arch>-linux/ascend_toolkit_install.info (root or $HOME installs).
toolkit_root=""
toolkit_info=""
toolkit_version=""
for root in "${ASCEND_TOOLKIT_HOME:-}" "${ASCEND_HOME_PATH:-}" \
	"$R/usr/local/Ascend/ascend-toolkit/latest" "$R/usr/local/Ascend/cann" \
	"${HOME:-/nonexistent}/Ascend/ascend-toolkit/latest" "${HOME:-/nonexistent}/Ascend/cann" \
	"$R"/usr/local/Ascend/cann-*; do
	[ -n "$root" ] && [ -d "$root" ] || continue
	for info in "$root/$arch-linux/ascend_toolkit_install.info" "$root/ascend_toolkit_install.info"; do
		if [ -f "$info" ]; then
			toolkit_root=$root
			toolkit_info=$info
			toolkit_version=$(kv version "$info")
			break 2
		fi
	done
done
toolkit_real=""
set_env=""
kernels_version=""
kernels_path=""
if [ -n "$toolkit_root" ]; then
	toolkit_real=$( (cd "$toolkit_root" 2>/dev/null && pwd -P) )
	for s in "$toolkit_root/set_env.sh" "$(dirname "$toolkit_root")/set_env.sh"; do
		if [ -f "$s" ]; then
			set_env=$s
			break
		fi
	done
	for k in "$toolkit_root/$arch-linux/ascend_ops_install.info" "$toolkit_root/opp_kernel/version.info"; do
		if [ -f "$k" ]; then
			kernels_path=$k
			kernels_version=$(kv version "$k")
			break
		fi
	done
fi
nnal_set_env=""
nnal_version=""
if [ -f "$R/usr/local/Ascend/nnal/atb/set_env.sh" ]; then
	nnal_set_env="$R/usr/local/Ascend/nnal/atb/set_env.sh"
	nnal_version=$(kv version "$R/usr/local/Ascend/nnal/atb/latest/version.info")
fi
# The command-line tools of the later phases: atc (infer-convert), msprof (profiling in tune and
# infer-optimize), aoe (tuning in infer-optimize). Each is looked for on the caller's PATH,
# then in the toolkit's usual folders; "path" is where it was found, "on_path" whether the
# caller's PATH reaches it.
on_path() { # name: prints the first executable NAME on the caller's PATH
	_ifs=$IFS
	IFS=:
	for _d in $orig_path; do
		if [ -n "$_d" ] && [ -f "$_d/$1" ] && [ -x "$_d/$1" ]; then
			printf '%s' "$_d/$1"
			break
		fi
	done
	IFS=$_ifs
}
tools_json=""
for tool in atc msprof aoe; do
	where=$(on_path "$tool")
	found_on_path=0
	[ -n "$where" ] && found_on_path=1
	if [ -z "$where" ] && [ -n "$toolkit_root" ]; then
		for c in "$toolkit_root/bin/$tool" "$toolkit_root/compiler/bin/$tool" "$toolkit_root/tools/profiler/bin/$tool" \
			"$toolkit_root/tools/aoe/bin/$tool"; do
			if [ -f "$c" ] && [ -x "$c" ]; then
				where=$c
				break
			fi
		done
	fi
	tools_json="${tools_json:+$tools_json,}\"$tool\":$(printf '{"path":%s,"on_path":%s}' "$(jsn "$where")" "$(jbool "$found_on_path")")"
done
# set_env.sh counts as sourced when the toolkit variables are set and the loader path has its libraries.
home_var=${ASCEND_TOOLKIT_HOME:-${ASCEND_HOME_PATH:-}}
sourced=0
if [ -n "$home_var" ]; then
	case ":${LD_LIBRARY_PATH:-}:" in
	*":$home_var/lib64:"* | *":$home_var/lib64/:"* | *":$home_var/runtime/lib64:"*) sourced=1 ;;
	esac
fi
cann_json=$(printf '{"toolkit":{"version":%s,"path":%s,"real_path":%s,"info_file":%s,"set_env":%s},"kernels":{"version":%s,"path":%s},"nnal":{"version":%s,"set_env":%s},"set_env_sourced":%s,"tools":{%s}}' \
	"$(jsn "$toolkit_version")" "$(jsn "$toolkit_root")" "$(jsn "$toolkit_real")" "$(jsn "$toolkit_info")" \
	"$(jsn "$set_env")" "$(jsn "$kernels_version")" "$(jsn "$kernels_path")" "$(jsn "$nnal_version")" \
	"$(jsn "$nnal_set_env")" "$(jbool "$sourced")" "$tools_json")

# ---- driver ----------------------------------------------------------------------
driver_root="$R/usr/local/Ascend"
install_info="$R/etc/ascend_install.info"
p=$(kv Driver_Install_Path_Param "$install_info")
[ -n "$p" ] && [ -d "$R$p/driver" ] && driver_root="$R$p"
driver_file=""
driver_version=""
if [ -f "$driver_root/driver/version.info" ]; then
	driver_file="$driver_root/driver/version.info"
	driver_version=$(kv Version "$driver_file")
fi
firmware_version=$(kv Version "$driver_root/firmware/version.info")
# what each side declares about the other: the firmware range the driver accepts
# (compatible_version_fw=[7.0.0,7.5.99]) and the HDK release each came from (package_version)
firmware_compat=$(kv compatible_version_fw "$driver_file")
driver_package=$(kv package_version "$driver_file")
firmware_package=$(kv package_version "$driver_root/firmware/version.info")

# ---- NPU -------------------------------------------------------------------------
smi=""
for c in npu-smi "$R/usr/local/sbin/npu-smi" "$R/usr/local/bin/npu-smi"; do
	if have "$c"; then
		smi=$c
		break
	fi
done
smi_raw=""
smi_status=""
if [ -n "$smi" ]; then
	smi_raw=$(t 6 "$smi" info 2>&1)
	smi_status=$?
else
	note_missing npu-smi
fi
smi_version=$(printf '%s\n' "$smi_raw" | sed -n 's/.*Version:[[:space:]]*\([^[:space:]|]*\).*/\1/p' | head -n 1)

# The chip table: two rows per chip between separators.
#   | NPU  Name | Health | Power(W) Temp(C) Hugepages-Usage(page) |
#   | Chip [Device|Phy-ID] | Bus-Id | AICore(%) Memory-Usage(MB) [HBM-Usage(MB)] |
CHIPS_AWK='
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
function num(s) {
	s = trim(s)
	if (s ~ /^[0-9]+$/) { sub(/^0+/, "", s); return s == "" ? "0" : s }
	if (s ~ /^[0-9]+\.[0-9]+$/) { sub(/^0+/, "", s); return s ~ /^\./ ? "0" s : s }
	return "null"
}
function str(s) { s = trim(s); return s == "" ? "null" : "\"" jesc(s) "\"" }
# cells: splits text into scalars SC[1..nsc] and "a / b" pairs PA[1..npa], PB[1..npa]
function cells(text,   t, m, i) {
	gsub(/\//, " / ", text)
	m = split(text, t, " ")
	nsc = 0; npa = 0
	for (i = 1; i <= m; i++) {
		if (i + 2 <= m && t[i + 1] == "/") { npa++; PA[npa] = t[i]; PB[npa] = t[i + 2]; i += 2 }
		else if (t[i] != "/") SC[++nsc] = t[i]
	}
}
function flush() {
	if (!pending) return
	printf "%s{\"id\":%s,\"chip\":%s,\"%s\":%s,\"name\":%s,\"health\":%s,\"power_w\":%s,\"temp_c\":%s,\"hugepages_used\":%s,\"hugepages_total\":%s,\"bus_id\":%s,\"aicore_pct\":%s,\"memory_used_mb\":%s,\"memory_total_mb\":%s,\"hbm_used_mb\":%s,\"hbm_total_mb\":%s}", \
		(count++ ? "," : ""), num(c_id), num(c_chip), sub_key, num(c_sub), str(c_name), str(c_health), num(c_power), \
		num(c_temp), num(c_hpu), num(c_hpt), str(c_bus), num(c_aicore), num(c_mu), num(c_mt), num(c_hu), num(c_ht)
	pending = 0
}
BEGIN { jinit(); sub_key = "device_id"; printf "[" }
/Process id|Process name|No running processes/ { inproc = 1 }
inproc || !/^\|/ { next }
{
	n = split($0, f, "|")
	if (n < 5) next
	c1 = trim(f[2]); c2 = trim(f[3]); c3 = f[4]
	if (c1 ~ /^NPU/) next
	if (c1 ~ /^Chip/) { if (c1 ~ /Phy-ID/) sub_key = "phy_id"; next }
	if (c2 ~ /^[0-9A-Fa-f]+:[0-9A-Fa-f]+:[0-9A-Fa-f]+\.[0-9A-Fa-f]+$/) {
		if (!pending) next
		m = split(c1, t, " ")
		c_chip = t[1]; c_sub = m > 1 ? t[2] : ""
		c_bus = c2
		cells(c3)
		c_aicore = nsc >= 1 ? SC[1] : ""
		c_mu = npa >= 1 ? PA[1] : ""; c_mt = npa >= 1 ? PB[1] : ""
		c_hu = npa >= 2 ? PA[2] : ""; c_ht = npa >= 2 ? PB[2] : ""
		flush()
		next
	}
	if (c1 ~ /^[0-9]+([ \t]|$)/) {
		flush()
		m = split(c1, t, " ")
		c_id = t[1]; c_name = m > 1 ? substr(c1, index(c1, t[2])) : ""
		c_health = c2
		cells(c3)
		c_power = nsc >= 1 ? SC[1] : ""; c_temp = nsc >= 2 ? SC[2] : ""
		c_hpu = npa >= 1 ? PA[1] : ""; c_hpt = npa >= 1 ? PB[1] : ""
		c_chip = ""; c_sub = ""; c_bus = ""; c_aicore = ""; c_mu = ""; c_mt = ""; c_hu = ""; c_ht = ""
		pending = 1
	}
}
END { flush(); printf "]" }
'
chips_json=$(printf '%s\n' "$smi_raw" | awk "$JSON_LIB$CHIPS_AWK")
[ -n "$chips_json" ] || chips_json="[]"

devices=""
for d in "$R"/dev/davinci[0-9]*; do
	[ -e "$d" ] || continue
	devices="${devices:+$devices,}$(js "${d##*/}")"
done
dev_manager=0
[ -e "$R/dev/davinci_manager" ] && dev_manager=1
dev_svm=0
[ -e "$R/dev/devmm_svm" ] && dev_svm=1
dev_hdc=0
[ -e "$R/dev/hisi_hdc" ] && dev_hdc=1
smi_available=0
[ -n "$smi" ] && smi_available=1
npu_json=$(printf '{"npu_smi_available":%s,"npu_smi_path":%s,"npu_smi_status":%s,"npu_smi_version":%s,"raw":%s,"chips":%s,"devices":[%s],"control_devices":{"davinci_manager":%s,"devmm_svm":%s,"hisi_hdc":%s}}' \
	"$(jbool "$smi_available")" "$(jsn "$smi")" "$(jnum "$smi_status")" "$(jsn "$smi_version")" "$(jsn "$smi_raw")" \
	"$chips_json" "$devices" "$(jbool "$dev_manager")" "$(jbool "$dev_svm")" "$(jbool "$dev_hdc")")
driver_json=$(printf '{"version":%s,"version_file":%s,"npu_smi_version":%s,"firmware":%s,"firmware_compatible":%s,"package_version":%s,"firmware_package_version":%s,"install_info":%s}' \
	"$(jsn "$driver_version")" "$(jsn "$driver_file")" "$(jsn "$smi_version")" "$(jsn "$firmware_version")" \
	"$(jsn "$firmware_compat")" "$(jsn "$driver_package")" "$(jsn "$firmware_package")" \
	"$(if [ -f "$install_info" ]; then js "$install_info"; else printf null; fi)")

# ---- environment variables -------------------------------------------------------
ENV_NAMES="ASCEND_HOME_PATH ASCEND_TOOLKIT_HOME ASCEND_OPP_PATH ASCEND_AICPU_PATH TOOLCHAIN_HOME
LD_LIBRARY_PATH PYTHONPATH PATH ASCEND_RT_VISIBLE_DEVICES ASCEND_DEVICE_ID ASCEND_GLOBAL_LOG_LEVEL
ASCEND_SLOG_PRINT_TO_STDOUT ASCEND_LAUNCH_BLOCKING ASCEND_CACHE_PATH ASCEND_PROCESS_LOG_PATH
PYTORCH_NPU_ALLOC_CONF PYTORCH_ALLOC_CONF MULTI_STREAM_MEMORY_REUSE TASK_QUEUE_ENABLE CPU_AFFINITY_CONF TORCH_TRANSFER_TO_NPU
ACL_OP_COMPILER_CACHE_MODE ACL_OP_COMPILER_CACHE_DIR HCCL_CONNECT_TIMEOUT HCCL_EXEC_TIMEOUT
HCCL_IF_IP HCCL_SOCKET_IFNAME HCCL_BUFFSIZE RANK_TABLE_FILE MASTER_ADDR MASTER_PORT WORLD_SIZE RANK
LOCAL_RANK CUDA_VISIBLE_DEVICES CONDA_DEFAULT_ENV VIRTUAL_ENV"
extra=$(env 2>/dev/null | awk -F= '/^(HCCL_|TORCH_HCCL_|ASCEND_|NPU_|ACL_|PYTORCH_NPU_)[A-Za-z0-9_]*=/ { print $1 }' | sort -u)
env_json=""
seen=" "
for n in $ENV_NAMES $extra; do
	case "$n" in
	*[!A-Za-z0-9_]* | '') continue ;;
	esac
	case "$seen" in
	*" $n "*) continue ;;
	esac
	seen="$seen$n "
	if [ "$n" = PATH ]; then
		env_json="${env_json:+$env_json,}\"PATH\":$(js "$orig_path")"
	elif eval "[ \"\${$n+set}\" = set ]"; then
		v=""
		eval "v=\${$n}"
		env_json="${env_json:+$env_json,}\"$n\":$(js "$v")"
	else
		case " $ENV_NAMES " in
		*[!A-Za-z0-9_]"$n"[!A-Za-z0-9_]*) env_json="${env_json:+$env_json,}\"$n\":null" ;;
		esac
	fi
done

# ---- the document ----------------------------------------------------------------
missing_json=""
for m in $missing; do
	missing_json="${missing_json:+$missing_json,}$(js "$m")"
done
ended=$(date +%s 2>/dev/null || echo 0)
uid=$(id -u 2>/dev/null)
printf '{"schema":"ferry-env-probe/1","probe":{"version":%s,"elapsed_s":%s,"uid":%s},"collected_at":%s,"host":%s,"python":%s,"cann":%s,"driver":%s,"npu":%s,"env":{%s},"missing":[%s]%s}\n' \
	"$PROBE_VERSION" "$(jnum $((ended - started)))" "$(jnum "$uid")" "$(jsn "$collected_at")" "$host_json" \
	"$python_json" "$cann_json" "$driver_json" "$npu_json" "$env_json" "$missing_json" "${smoke_json:+,\"smoke\":$smoke_json}"
