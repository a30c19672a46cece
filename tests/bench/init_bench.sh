#!/bin/sh
# Baseline benchmark: `ferry init` (the baseline commit of every project file) side by
# side in the same run with `git init && git add -A && git commit` on the same tree,
# into a git directory outside it. Trees: a synthetic one from tests/bench/gen_repo.py
# (BENCH_INIT_MB megabytes, default 50: about 2,100 files), and BENCH_INIT_DIR when set
# (any folder, copied as it is, e.g. a checkout without its .git or a copy of a Python
# package tree). Prints the best wall time of BENCH_RUNS runs (default 3, alternating,
# warm page cache) and ferry's time as a ratio to git's. Not part of `make test`.
#   BENCH_INIT_DIR=/path/to/tree sh tests/bench/init_bench.sh
#   FERRY=/path/to/other/ferry BENCH_RUNS=5 sh tests/bench/init_bench.sh
set -eu
cd "$(dirname "$0")/../.."

mb=${BENCH_INIT_MB:-50}
runs=${BENCH_RUNS:-3}
ferry=$(cd "$(dirname "${FERRY:-./ferry}")" && pwd)/$(basename "${FERRY:-./ferry}")
python=${PYTHON:-python3}
work=build/bench/init
out=build/bench/out-init
mkdir -p "$work" "$out"
[ -x "$ferry" ] || { echo "bench: $ferry not built" >&2; exit 1; }
command -v git >/dev/null || { echo "bench: git not found" >&2; exit 1; }

syn="$work/syn-${mb}mb"
if [ ! -f "$syn/.bench-manifest.json" ]; then
	rm -rf "$syn"
	mkdir -p "$syn"
	"$python" tests/bench/gen_repo.py --mb "$mb" "$syn" >/dev/null
fi
trees="$syn"
if [ -n "${BENCH_INIT_DIR:-}" ]; then
	copy="$work/tree-$(basename "$BENCH_INIT_DIR")"
	rm -rf "$copy"
	mkdir -p "$copy"
	(cd "$BENCH_INIT_DIR" && tar -cf - .) | (cd "$copy" && tar -xf -)
	trees="$trees $copy"
fi

now() { date +%s.%N; }
# timed CMD...: wall seconds of one run into $secs; a failure aborts the benchmark
timed() {
	t0=$(now)
	if ! "$@" >"$out/last.out" 2>"$out/last.err"; then
		echo "bench: $* failed:" >&2
		tail -n 5 "$out/last.err" >&2
		exit 1
	fi
	t1=$(now)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
}
best() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b < a) print b; else print a }'; }

git_baseline() { # TREE GITDIR
	git --git-dir="$2" init -q
	git --git-dir="$2" --work-tree="$1" add -A
	git --git-dir="$2" --work-tree="$1" -c user.name=bench -c user.email=bench@localhost commit -qm baseline
}

rows=""
for tree in $trees; do
	gd="$work/git-baseline.git"
	find "$tree" -type f -exec cat {} + >/dev/null # warm the page cache
	ferry_best=""
	git_best=""
	i=0
	while [ "$i" -lt "$runs" ]; do
		rm -rf "$tree/.ferry" "$gd"
		timed git_baseline "$tree" "$gd"
		git_best=$(best "$git_best" "$secs")
		rm -rf "$gd"
		timed "$ferry" init "$tree"
		ferry_best=$(best "$ferry_best" "$secs")
		[ "$i" -eq $((runs - 1)) ] || rm -rf "$tree/.ferry"
		i=$((i + 1))
	done
	files=$(git --git-dir="$tree/.ferry/history.git" ls-tree -r HEAD | wc -l)
	mib=$(du -sm --exclude=.ferry "$tree" | cut -f1)
	ratio=$(awk -v a="$ferry_best" -v b="$git_best" 'BEGIN { printf "%.2f", a / b }')
	rows="$rows$(basename "$tree")|$files|$mib|$ferry_best|$git_best|$ratio
"
done

printf '\nferry init against git init + add -A + commit, %s cores, best of %s, wall seconds\n\n' \
	"$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo ?)" "$runs"
printf '%s' "$rows" | awk -F'|' '
	BEGIN { printf "%-28s %6s %6s %11s %8s %10s\n", "tree", "files", "MiB", "ferry init", "git", "ferry/git" }
	{ printf "%-28s %6s %6s %11s %8s %9sx\n", $1, $2, $3, $4, $5, $6 }'
echo
echo "files = paths in the baseline; git = git init, git add -A, git commit into a git directory outside the tree"
