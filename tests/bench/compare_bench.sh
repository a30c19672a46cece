#!/bin/sh
# Dump-comparison benchmark: `ferry compare dump` on a pair of large float32 .npy files
# (BENCH_COMPARE_MB MiB each, default 512; they differ only in their last MiB), side by
# side in the same run with two baselines that understand nothing: `cat` of both files
# (the cost of reading them) and `cmp` (a byte comparison, which must read to the end to
# find the difference). Prints wall time, throughput over both files, and peak resident
# memory (getrusage's ru_maxrss of the child, the figure `/usr/bin/time -v` reports as
# "Maximum resident set size"), so the bounded memory of the streaming engine is visible
# next to the size of the tensors. Warm page cache; best of BENCH_RUNS (default 1).
#   BENCH_COMPARE_MB=64 sh tests/bench/compare_bench.sh       a quick run
set -eu
cd "$(dirname "$0")/../.."

mb=${BENCH_COMPARE_MB:-512}
runs=${BENCH_RUNS:-1}
ferry=${FERRY:-./ferry}
python=${PYTHON:-python3}
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
dir=build/bench/compare-${mb}mb
out=build/bench/out
mkdir -p "$dir" "$out"

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

cat "$dir/a.npy" "$dir/b.npy" >/dev/null # warm the page cache

# measure TAG LABEL CMD...: best wall time and the peak RSS of CMD, via getrusage in a parent
# python process; exit status 0 and 1 are fine (cmp and compare report a difference).
results=""
measure() {
	name=$1
	label=$2
	shift 2
	best=""
	rss=""
	i=0
	while [ "$i" -lt "$runs" ]; do
		if [ -x /usr/bin/time ] && /usr/bin/time -f '%e %M' -o /dev/null true 2>/dev/null; then
			# GNU time: a small parent, so the figure is the command's own peak
			if /usr/bin/time -f '%e %M' -o "$out/$name.time" "$@" >"$out/$name.out" 2>"$out/$name.err"; then
				rc=0
			else
				rc=$?
			fi
			line="$(tail -n 1 "$out/$name.time") $rc"
		else
			line=$("$python" -c '
import resource, subprocess, sys, time
t = time.monotonic()
with open(sys.argv[1], "wb") as o, open(sys.argv[2], "wb") as e:
    rc = subprocess.call(sys.argv[3:], stdout=o, stderr=e)
t = time.monotonic() - t
print("%.3f %d %d" % (t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, rc))' \
				"$out/$name.out" "$out/$name.err" "$@")
		fi
		t=${line%% *}
		rest=${line#* }
		kb=${rest%% *}
		rc=${rest#* }
		if [ "$rc" -gt 1 ]; then
			echo "bench: $name exited with $rc:" >&2
			tail -n 5 "$out/$name.err" >&2
			exit 1
		fi
		best=$(awk -v a="$t" -v b="$best" 'BEGIN { if (b == "" || a < b) b = a; printf "%.3f", b }')
		rss=$kb
		i=$((i + 1))
	done
	results="$results$label|$best|$rss
"
}

measure cat "cat a b > /dev/null" sh -c 'cat "$1" "$2" >/dev/null' sh "$dir/a.npy" "$dir/b.npy"
measure cmp "cmp a b" cmp "$dir/a.npy" "$dir/b.npy"
# numpy, as a user would check the pair by hand: load both, cosine and max abs error in
# float64 (what ferry computes); only where numpy is installed
if "$python" -c 'import numpy' 2>/dev/null; then
	measure numpy "numpy: cosine + max abs err" "$python" -c '
import sys
import numpy as np
a = np.load(sys.argv[1], mmap_mode="r").astype(np.float64)
b = np.load(sys.argv[2], mmap_mode="r").astype(np.float64)
print(a @ b / np.sqrt((a @ a) * (b @ b)), np.abs(a - b).max())' "$dir/a.npy" "$dir/b.npy"
else
	echo "bench: no numpy in $python; the numpy baseline is skipped" >&2
fi
if [ -x "$ferry" ]; then
	measure compare1 "ferry compare dump --threads 1" "$ferry" -C "$proj" compare dump "$dir/a.npy" "$dir/b.npy" --threads 1
	measure compareN "ferry compare dump ($jobs threads)" "$ferry" -C "$proj" compare dump "$dir/a.npy" "$dir/b.npy"
else
	echo "bench: $ferry not built; timing the baselines only" >&2
fi

printf '\ndump comparison benchmark: two float32 .npy files of %s MiB each, best of %s, %s cores\n\n' "$mb" "$runs" "$jobs"
printf '%s' "$results" | awk -F'|' -v mb="$mb" '
	{ name[NR] = $1; t[NR] = $2; kb[NR] = $3; if ($1 == "cmp a b") base = $2 }
	END {
		printf "%-36s %8s %12s %14s %10s\n", "contender", "wall s", "MiB/s", "peak RSS MiB", "vs cmp"
		for (i = 1; i <= NR; i++)
			printf "%-36s %8.3f %12.0f %14.1f %9.2fx\n", name[i], t[i], (t[i] > 0 ? 2 * mb / t[i] : 0),
			       kb[i] / 1024, (base > 0 ? t[i] / base : 0)
	}'
echo
echo "ferry also hashes both files (SHA-256, for the audit record) in the same pass of its workers;"
echo "peak RSS stays bounded by threads x chunk buffers whatever the tensor size. Outputs in $out/."
