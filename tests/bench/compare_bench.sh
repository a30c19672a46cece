#!/bin/sh
# Dump-comparison benchmark: `ferry compare dump` on a pair of large float32 .npy files
# (BENCH_COMPARE_MB MiB each, default 1024; they differ only in their last MiB), side by
# side in the same run with:
#   cat a b > /dev/null     the page-cache read limit: the cost of reading the bytes
#   cmp a b                 a byte comparison, which reads to the end to find the difference
#   openssl dgst -sha256    the hashing ferry does for the audit record, alone (where the
#                           openssl tool is installed): the floor of ferry's CPU time
#   numpy, whole arrays     tests/bench/dump_numpy.py whole: np.load both, the metrics ferry
#                           reports computed on whole float64 arrays (the script a user
#                           writes first; needs several times the tensors' size in memory)
#   numpy, chunked mmap     tests/bench/dump_numpy.py chunked: np.load(mmap_mode="r"), the
#                           same metrics over slices of 16 Mi elements
# ferry runs three ways: on one thread and on all cores, hashing both files (SHA-256, for
# the audit record) while it compares them, and on the same files as dumps already
# ingested (a folder each, with the sha256sum manifest `ferry ingest dump` keeps beside
# its stored copy), whose hashes it takes from the manifests: the comparison alone.
# For each: wall time, CPU time (user + system), throughput over both files and peak
# resident memory (getrusage's ru_maxrss of the child, the figure `/usr/bin/time -v` calls
# "Maximum resident set size"). Then ferry's ratios to each contender, measured in this
# run, and a check that ferry and numpy report the same figures. Warm page cache; best
# wall time of BENCH_RUNS (default 1).
#   BENCH_COMPARE_MB=64 sh tests/bench/compare_bench.sh       a quick run
#   BENCH_NUMPY_WHOLE=0 ...                                   skip the whole-array numpy
#                                                             script (it needs ~12× the
#                                                             size of one file in memory)
set -eu
cd "$(dirname "$0")/../.."

mb=${BENCH_COMPARE_MB:-1024}
runs=${BENCH_RUNS:-1}
ferry=${FERRY:-./ferry}
whole=${BENCH_NUMPY_WHOLE:-1}
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
dir=build/bench/compare-${mb}mb
out=build/bench/out
mkdir -p "$dir" "$out"

# a Python with numpy for the baselines: $PYTHON, else the first python3 that has it
python=${PYTHON:-}
if [ -z "$python" ]; then
	for p in python3 /usr/bin/python3; do
		if "$p" -c 'import numpy' 2>/dev/null; then
			python=$p
			break
		fi
	done
	python=${python:-python3}
fi

if [ ! -f "$dir/b.npy" ]; then
	"$python" - "$dir" "$mb" <<'PY'
import array, math, struct, sys
d, mb = sys.argv[1], int(sys.argv[2])
n = mb * 262144  # float32 elements in mb MiB
hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % n
hdr += " " * (64 - (10 + len(hdr) + 1) % 64) + "\n"
head = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode()
block = array.array("f", (math.sin(i * 0.001) for i in range(262144))).tobytes()
last = array.array("f", (math.sin(i * 0.001) * 1.0001 for i in range(262144))).tobytes()
for name, tail in (("a.npy", block), ("b.npy", last)):
    with open("%s/%s" % (d, name), "wb") as f:
        f.write(head)
        for _ in range(mb - 1):
            f.write(block)
        f.write(tail)
PY
fi

proj=$dir/proj
if [ -x "$ferry" ] && [ ! -d "$proj/.ferry" ]; then
	mkdir -p "$proj"
	printf 'print("bench")\n' >"$proj/train.py"
	"$ferry" init "$proj" >"$out/compare-init.log" 2>&1 || { cat "$out/compare-init.log" >&2; exit 1; }
fi

# the ingested form: hard links to the same files, and their manifests
for s in a b; do
	if [ ! -f "$dir/ingested/$s.sha256" ]; then
		mkdir -p "$dir/ingested/$s"
		ln -f "$dir/$s.npy" "$dir/ingested/$s/t.npy"
		"$python" -c '
import hashlib, sys
h = hashlib.sha256()
with open(sys.argv[1], "rb") as f:
    for block in iter(lambda: f.read(1 << 20), b""):
        h.update(block)
print("%s  t.npy" % h.hexdigest())' "$dir/ingested/$s/t.npy" >"$dir/ingested/$s.sha256"
	fi
done

cat "$dir/a.npy" "$dir/b.npy" >/dev/null # warm the page cache

# measure TAG LABEL CMD...: the best wall time of CMD, with the CPU time (user + system)
# and peak RSS of that run: from GNU time where it is installed (a small parent, so the
# figure is the command's own peak), else from getrusage in a parent python process (whose
# own pages before exec set a floor of some 10 MiB); exit status 0 and 1 are fine (cmp and
# compare report a difference).
gnu_time=0
if [ -x /usr/bin/time ] && /usr/bin/time -f '%e' -o /dev/null true 2>/dev/null; then
	gnu_time=1
fi
results=""
measure() {
	name=$1
	label=$2
	shift 2
	best=""
	i=0
	while [ "$i" -lt "$runs" ]; do
		if [ "$gnu_time" = 1 ]; then
			if /usr/bin/time -f '%e %U %S %M' -o "$out/$name.time" "$@" >"$out/$name.out" 2>"$out/$name.err"; then
				rc=0
			else
				rc=$?
			fi
			line=$(tail -n 1 "$out/$name.time" | awk -v rc="$rc" '{ printf "%s %.2f %s %s", $1, $2 + $3, $4, rc }')
		else
			line=$("$python" -c '
import resource, subprocess, sys, time
t = time.monotonic()
with open(sys.argv[1], "wb") as o, open(sys.argv[2], "wb") as e:
    rc = subprocess.call(sys.argv[3:], stdout=o, stderr=e)
t = time.monotonic() - t
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.3f %.3f %d %d" % (t, u.ru_utime + u.ru_stime, u.ru_maxrss, rc))' \
				"$out/$name.out" "$out/$name.err" "$@")
		fi
		t=$(echo "$line" | cut -d' ' -f1)
		cpu=$(echo "$line" | cut -d' ' -f2)
		kb=$(echo "$line" | cut -d' ' -f3)
		rc=$(echo "$line" | cut -d' ' -f4)
		if [ "$rc" -gt 1 ]; then
			echo "bench: $name exited with $rc:" >&2
			tail -n 5 "$out/$name.err" >&2
			exit 1
		fi
		if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$t
			best_cpu=$cpu
			best_kb=$kb
		fi
		i=$((i + 1))
	done
	results="$results$name|$label|$best|$best_cpu|$best_kb
"
}

measure cat "cat a b > /dev/null" sh -c 'cat "$1" "$2" >/dev/null' sh "$dir/a.npy" "$dir/b.npy"
measure cmp "cmp a b" cmp "$dir/a.npy" "$dir/b.npy"
if command -v openssl >/dev/null 2>&1; then
	measure sha "openssl dgst -sha256 a b" openssl dgst -sha256 "$dir/a.npy" "$dir/b.npy"
fi
have_numpy=0
if "$python" -c 'import numpy' 2>/dev/null; then
	have_numpy=1
	if [ "$whole" = 1 ]; then
		measure np_whole "numpy, whole arrays" "$python" tests/bench/dump_numpy.py whole "$dir/a.npy" "$dir/b.npy"
	fi
	measure np_chunked "numpy, chunked mmap" "$python" tests/bench/dump_numpy.py chunked "$dir/a.npy" "$dir/b.npy"
else
	echo "bench: no numpy in $python; the numpy baselines are skipped" >&2
fi
if [ -x "$ferry" ]; then
	measure ferry1 "ferry compare dump --threads 1" "$ferry" -C "$proj" compare dump "$dir/a.npy" "$dir/b.npy" \
		--threads 1 --format csv
	measure ferryN "ferry compare dump ($jobs threads)" "$ferry" -C "$proj" compare dump "$dir/a.npy" "$dir/b.npy" \
		--format csv
	measure ferryI "ferry, ingested: hashes known" "$ferry" -C "$proj" compare dump "$dir/ingested/a" \
		"$dir/ingested/b" --format csv
else
	echo "bench: $ferry not built; timing the baselines only" >&2
fi

printf '\ndump comparison benchmark: two float32 .npy files of %s MiB each, best of %s, %s cores\n\n' "$mb" "$runs" "$jobs"
printf '%s' "$results" | awk -F'|' -v mb="$mb" -v jobs="$jobs" '
	{ tag[NR] = $1; name[NR] = $2; t[NR] = $3; cpu[NR] = $4; kb[NR] = $5; at[$1] = NR }
	END {
		printf "%-34s %8s %8s %9s %13s\n", "contender", "wall s", "CPU s", "MiB/s", "peak RSS MiB"
		for (i = 1; i <= NR; i++)
			printf "%-34s %8.2f %8.2f %9.0f %13.1f\n", name[i], t[i], cpu[i], (t[i] > 0 ? 2 * mb / t[i] : 0),
			       kb[i] / 1024
		if (!("ferryN" in at))
			exit
		printf "\nferry against each contender (its time over ferry'"'"'s; above 1: ferry is faster):\n"
		printf "%-34s %13s %13s %13s %13s\n", "", "CPU, 1 thr.", "CPU, " jobs " thr.", "wall, " jobs " thr.",
		       "CPU, ingested"
		f1 = at["ferry1"]; fn = at["ferryN"]; fi = at["ferryI"]
		for (i = 1; i <= NR; i++) {
			if (tag[i] ~ /^ferry/)
				continue
			printf "%-34s %13s %13s %13s %13s\n", name[i], x(cpu[i], cpu[f1], 2), x(cpu[i], cpu[fn], 2),
			       x(t[i], t[fn], 2), x(cpu[i], cpu[fi], 2)
		}
		printf "\n"
		if ("np_whole" in at)
			target(cpu[at["np_whole"]], 10, "numpy on whole arrays", cpu[fn], cpu[fi])
		if ("np_chunked" in at)
			target(cpu[at["np_chunked"]], 2, "chunked mmap numpy", cpu[fn], cpu[fi])
		c = at["cat"]
		printf "the page-cache read limit: ferry takes %s the wall time of cat (%s with 1 thread, %s ingested)\n",
		       x(t[fn], t[c], 1), x(t[f1], t[c], 1), x(t[fi], t[c], 1)
	}
	# a / b as "12.3x", or "n/a" when b is too small to measure
	function x(a, b, digits) {
		return b > 0 ? sprintf("%." digits "fx", a / b) : "n/a"
	}
	function target(base, want, what, hashing, known) {
		printf "target: at least %dx the CPU speed of %s: %s hashing (%s), %s with the hashes known (%s)\n",
		       want, what, x(base, hashing, 1), (base >= want * hashing ? "met" : "NOT met"), x(base, known, 1),
		       (base >= want * known ? "met" : "NOT met")
	}'

# the same figures from ferry and numpy: CSV columns 9-16 against numpy's name=value line
if [ "$have_numpy" = 1 ] && [ -x "$ferry" ]; then
	"$python" - "$out/ferryN.out" "$out/np_chunked.out" <<'PY'
import csv, math, sys
row = list(csv.DictReader(open(sys.argv[1])))[0]
want = dict(kv.split("=") for kv in open(sys.argv[2]).read().split())
bad = [k for k in ("cosine", "euc_dist", "max_abs_err", "max_rel_err", "one_thousandth_err_ratio",
                   "five_thousandths_err_ratio", "nonfinite_a", "nonfinite_b")
       if not math.isclose(float(row[k]), float(want[k]), rel_tol=1e-9, abs_tol=1e-12)]
print("ferry and numpy agree on every metric (to 1e-9)" if not bad else "MISMATCH between ferry and numpy: %s" % bad)
PY
fi
echo
echo "Unless its hashes are known, ferry also hashes both files (SHA-256, for the audit record) in"
echo "the same run; numpy does not. Peak RSS stays bounded by threads x chunk buffers whatever the"
echo "tensor size. Outputs in $out/."
