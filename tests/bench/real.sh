#!/bin/sh
# Real repositories: ferry against the same baselines as run.sh, on public code at pinned
# commits, small to large. The checkouts are looked for under BENCH_REAL_DIR (else
# REALCODE_DIR, the folder of tests/realcode, whose pins these share; else
# build/bench/real-src), one folder per repository named as below; a repository that is
# not there is skipped with the commands that fetch it. A folder that is a git checkout
# must be at the pinned commit; a plain tree (e.g. `git archive` output) is taken as is.
# Each repository is copied to build/bench/real/NAME and committed (ferry expects a
# project under version control), then, in the same run and on the same warm tree:
#   ferry init + ferry check --phase assess   (the first screen of an engagement)
#   ferry check                               (all seven phases, after that)
#   tests/bench/ast_scan.py, 1 process        (the scanner a person would write)
#   grep -rn cuda, best of 3                  (reads everything, understands nothing)
# with wall seconds, peak memory (/usr/bin/time -f %M when present) and the ratios.
#   BENCH_REAL_DIR=/data/repos sh tests/bench/real.sh
set -eu
cd "$(dirname "$0")/../.."

src=${BENCH_REAL_DIR:-${REALCODE_DIR:-build/bench/real-src}}
ferry=$(cd "$(dirname "${FERRY:-./ferry}")" && pwd)/$(basename "${FERRY:-./ferry}")
python=${PYTHON:-python3}
work=build/bench/real
out=build/bench/out-real
mkdir -p "$work" "$out"
[ -x "$ferry" ] || { echo "bench: $ferry not built" >&2; exit 1; }

# name|url|commit|size
repos="nanoGPT|https://github.com/karpathy/nanoGPT|3adf61e154c3fe3fca428ad6bc3818b27a3b8291|small
pytorch-image-models|https://github.com/huggingface/pytorch-image-models|aa4b5850c1543fa488abf260f18390eda46cf85d|~100k lines
Megatron-LM|https://github.com/NVIDIA/Megatron-LM|d98e8a64ddf34856e74b24714e3bedb2f5a39553|~500k lines
diffusers|https://github.com/huggingface/diffusers|58eb52c0803ea9af3abec60841c2a093bdf1f951|~1M lines"

timer=""
[ -x /usr/bin/time ] && timer=/usr/bin/time

# measure NAME CMD...: wall seconds into $secs, peak KiB into $peak ("-" without a timer).
# Exit status 0 and 1 are fine; 3 (a plugin error) is noted; others abort.
measure() {
	what=$1
	shift
	t0=$(date +%s.%N)
	if [ -n "$timer" ]; then
		if "$timer" -f %M -o "$out/$what.mem" "$@" >"$out/$what.out" 2>"$out/$what.err"; then rc=0; else rc=$?; fi
	else
		if "$@" >"$out/$what.out" 2>"$out/$what.err"; then rc=0; else rc=$?; fi
	fi
	t1=$(date +%s.%N)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	peak=$( [ -n "$timer" ] && tail -n 1 "$out/$what.mem" || echo -)
	if [ "$rc" -eq 3 ]; then
		echo "bench: $what: a plugin failed ($(grep -m1 'plugin ' "$out/$what.err" | cut -c1-120))" >&2
	elif [ "$rc" -gt 1 ]; then
		echo "bench: $what exited with $rc:" >&2
		tail -n 5 "$out/$what.err" >&2
		exit 1
	fi
}

mb() { [ "$1" = - ] && echo - || awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "-" }'; }

rows=""
IFS='
'
for line in $repos; do
	name=$(echo "$line" | cut -d'|' -f1)
	url=$(echo "$line" | cut -d'|' -f2)
	commit=$(echo "$line" | cut -d'|' -f3)
	size=$(echo "$line" | cut -d'|' -f4)
	if [ ! -d "$src/$name" ]; then
		echo "bench: $name ($size) skipped: not in $src/$name; fetch it with"
		echo "       git clone $url $src/$name && git -C $src/$name checkout $commit"
		continue
	fi
	if [ -e "$src/$name/.git" ]; then
		head=$(git -C "$src/$name" rev-parse HEAD 2>/dev/null || echo none)
		if [ "$head" != "$commit" ]; then
			echo "bench: $name skipped: $src/$name is at $head, not the pinned $commit"
			continue
		fi
	fi
	tree="$work/$name"
	if [ ! -f "$tree/.bench-commit" ] || [ "$(cat "$tree/.bench-commit")" != "$commit" ]; then
		rm -rf "$tree"
		mkdir -p "$tree"
		(cd "$src/$name" && tar --exclude=.git -cf - .) | (cd "$tree" && tar -xf -)
		echo "$commit" >"$tree/.bench-commit"
		git -C "$tree" init -q
		git -C "$tree" add -A
		git -C "$tree" -c user.name=bench -c user.email=bench@localhost commit -qm "$name at $commit"
	fi
	files=$(find "$tree" -name '*.py' -not -path '*/.git/*' | wc -l)
	lines=$(find "$tree" -name '*.py' -not -path '*/.git/*' -print0 | xargs -0 cat | wc -l)
	find "$tree" -name '*.py' -not -path '*/.git/*' -exec cat {} + >/dev/null # warm the page cache

	rm -rf "$tree/.ferry"
	measure "$name-init" "$ferry" init "$tree"
	init_s=$secs
	measure "$name-assess" "$ferry" -C "$tree" check --phase assess --format json
	assess_s=$secs
	assess_peak=$peak
	first=$(awk -v a="$init_s" -v b="$assess_s" 'BEGIN { printf "%.2f", a + b }')
	measure "$name-full" "$ferry" -C "$tree" check --format json
	full_s=$secs
	full_peak=$peak
	measure "$name-ast" "$python" tests/bench/ast_scan.py "$tree"
	ast_s=$secs
	ast_peak=$peak
	# grep reads the project's files only (not .git, nor the store ferry just wrote, whose
	# findings say "cuda" thousands of times); it takes a tenth of a second, so one
	# scheduling hiccup doubles it: the best of three runs
	grep_s=""
	for _run in 1 2 3; do
		measure "$name-grep" grep -rn --exclude-dir=.git --exclude-dir=.ferry cuda "$tree"
		grep_s=$(awk -v a="$secs" -v b="$grep_s" 'BEGIN { if (b == "" || a < b) print a; else print b }')
	done
	rows="$rows$name|$files|$lines|$init_s|$first|$full_s|$ast_s|$grep_s|$(ratio "$ast_s" "$first")|$(ratio "$first" "$grep_s")|$(ratio "$full_s" "$first")|$(mb "$assess_peak")|$(mb "$full_peak")|$(mb "$ast_peak")
"
done

[ -n "$rows" ] || { echo "bench: no real repository present under $src"; exit 0; }
printf '\nreal repositories, %s cores, wall seconds (one run each, warm page cache)\n\n' \
	"$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo ?)"
printf '%s' "$rows" | awk -F'|' '
	BEGIN {
		printf "%-22s %6s %8s %7s %11s %7s %7s %6s %9s %9s %10s %9s %9s %8s\n", "repository", "files", "lines",
		       "init", "init+assess", "full", "ast", "grep", "ast/first", "first/grep", "full/first",
		       "assess MB", "full MB", "ast MB"
	}
	{ printf "%-22s %6s %8s %7s %11s %7s %7s %6s %8sx %8sx %9sx %9s %9s %8s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14 }'
echo
echo "first = ferry init + ferry check --phase assess; ast = tests/bench/ast_scan.py, 1 process;"
echo "ast/first above 1 means ferry is faster; outputs in $out/"
