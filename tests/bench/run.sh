#!/bin/sh
# Assessment benchmark: `ferry check --phase assess` on a synthetic repository of Python
# (tests/bench/gen_repo.py: BENCH_MB megabytes, default 50, only a few files using CUDA),
# side by side in the same run with two baselines: `grep -rn cuda` (reads everything,
# understands nothing) and a scanner on Python's own `ast` module (tests/bench/ast_scan.py)
# doing the same detection, over all files and with the same literal prefilter ferry uses.
# Prints wall times (best of BENCH_RUNS, default 1, warm page cache) and each time as a
# ratio to ferry's. Not part of `make test`: `make bench` runs it.
#   BENCH_MB=5 sh tests/bench/run.sh          a quick run on a small tree
#   FERRY=./ferry BENCH_DIR=/tmp/r sh tests/bench/run.sh
set -eu
cd "$(dirname "$0")/../.."

mb=${BENCH_MB:-50}
runs=${BENCH_RUNS:-1}
dir=${BENCH_DIR:-build/bench/repo-${mb}mb}
ferry=${FERRY:-./ferry}
python=${PYTHON:-python3}
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
out=build/bench/out
mkdir -p "$out"

if [ ! -f "$dir/.bench-manifest.json" ]; then
	rm -rf "$dir"
	mkdir -p "$dir"
	"$python" tests/bench/gen_repo.py --mb "$mb" "$dir"
fi
sites=$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["cuda_sites"])' \
	"$dir/.bench-manifest.json")

have_ferry=0
if [ -x "$ferry" ]; then
	have_ferry=1
	if [ ! -d "$dir/.ferry" ]; then
		# a project under version control, as ferry expects of a real one
		if [ ! -d "$dir/.git" ] && command -v git >/dev/null; then
			git -C "$dir" init -q
			git -C "$dir" add -A
			git -C "$dir" -c user.name=bench -c user.email=bench@localhost commit -qm "bench tree"
		fi
		if ! "$ferry" init "$dir" >"$out/init.log" 2>&1; then
			echo "bench: ferry init failed:" >&2
			cat "$out/init.log" >&2
			have_ferry=0
		fi
	fi
else
	echo "bench: $ferry not built; timing the baselines only" >&2
fi

# Warm the page cache so every contender reads from memory.
find "$dir" -name '*.py' -exec cat {} + >/dev/null

now() { date +%s.%N; }

# timed NAME CMD...: runs CMD (stdout to $out/NAME.out) BENCH_RUNS times; sets $best (seconds).
# Exit status 0 and 1 are fine (grep with no match, check with findings); others abort.
timed() {
	name=$1
	shift
	best=""
	i=0
	while [ "$i" -lt "$runs" ]; do
		t0=$(now)
		if "$@" >"$out/$name.out" 2>"$out/$name.err"; then rc=0; else rc=$?; fi
		t1=$(now)
		if [ "$rc" -gt 1 ]; then
			echo "bench: $name exited with $rc:" >&2
			tail -n 5 "$out/$name.err" >&2
			exit 1
		fi
		best=$(awk -v a="$t0" -v b="$t1" -v best="$best" \
			'BEGIN { t = b - a; if (best == "" || t < best) best = t; printf "%.3f", best }')
		i=$((i + 1))
	done
}

results=""
# add LABEL SECONDS SITES
add() { results="$results$1|$2|$3
"; }

if [ "$have_ferry" = 1 ]; then
	timed ferry "$ferry" -C "$dir" check --phase assess --format json
	n=$("$python" -c 'import json,sys
try:
    d = json.load(open(sys.argv[1]))
    d = d.get("findings", d) if isinstance(d, dict) else d
    print(len(d))
except Exception:
    print("-")' "$out/ferry.out")
	add "ferry check --phase assess" "$best" "$n findings"
fi
# the project's own files, as ast_scan.py reads them: not ferry's store nor the git objects
timed grep grep -rn --exclude-dir=.git --exclude-dir=.ferry cuda "$dir"
add "grep -rn cuda" "$best" "$(wc -l <"$out/grep.out") lines"
timed ast_all "$python" tests/bench/ast_scan.py "$dir"
add "ast scanner, every file, 1 process" "$best" "$(wc -l <"$out/ast_all.out") sites"
if [ "$jobs" -gt 1 ]; then
	timed ast_jobs "$python" tests/bench/ast_scan.py --jobs "$jobs" "$dir"
	add "ast scanner, every file, $jobs processes" "$best" "$(wc -l <"$out/ast_jobs.out") sites"
fi
timed ast_pre "$python" tests/bench/ast_scan.py --prefilter "$dir"
add "ast scanner, prefiltered, 1 process" "$best" "$(wc -l <"$out/ast_pre.out") sites"

bytes=$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["bytes"])' \
	"$dir/.bench-manifest.json")
printf '\nassessment benchmark: %s (%.1f MiB of Python, %s CUDA sites), best of %s, %s cores\n\n' \
	"$dir" "$(awk -v b="$bytes" 'BEGIN { print b / 1048576 }')" "$sites" "$runs" "$jobs"
printf '%s' "$results" | awk -F'|' '
	NR == 1 { base = $2 }
	{ label[NR] = $1; t[NR] = $2; what[NR] = $3 }
	END {
		printf "%-40s %10s %12s   %s\n", "contender", "wall s", "vs first", "result"
		for (i = 1; i <= NR; i++)
			printf "%-40s %10.3f %11.1fx   %s\n", label[i], t[i], (base > 0 ? t[i] / base : 0), what[i]
	}'
echo
echo "outputs in $out/; ratios above 1 mean slower than the first line"
if [ "$have_ferry" = 1 ]; then echo; FERRY="$ferry" sh tests/bench/tui_bench.sh; fi
if [ "$have_ferry" = 1 ]; then echo; FERRY="$ferry" sh tests/bench/compare_bench.sh; fi
if [ "$have_ferry" = 1 ]; then echo; FERRY="$ferry" sh tests/bench/onnx_bench.sh; fi
