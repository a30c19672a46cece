#!/bin/sh
# Workbench benchmark: an engagement with 10 000 findings. Times, side by side
# in the same run, the CLI listing the same findings (`ferry findings --format
# json`, the baseline), the workbench's first screen (headless), and 2 000 cursor
# moves, and prints the ratios. The first screen should cost about what the CLI
# listing costs; a cursor move should cost well under a millisecond and repaint
# only what changed: the two list rows and the detail pane (the new finding), not
# the screen — the cells painted per move are counted (FERRY_UI_STATS) and shown
# against a full screen. Called by tests/bench/run.sh; runs alone as well.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
FERRY="${FERRY:-$top/ferry}"
[ -x "$FERRY" ] || { echo "tui_bench: $FERRY is not built" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ferry-tuibench-XXXXXX")
trap 'rm -rf "$work"' EXIT
export FERRY_ACTOR="Bench <bench@example.org>" FERRY_LANG=en

# 20 files of 500 CUDA device calls: 10 000 findings from the assess checks
i=0
while [ "$i" -lt 20 ]; do
	{
		echo "import torch"
		j=0
		while [ "$j" -lt 500 ]; do
			echo "x$j = torch.zeros(1).cuda()"
			j=$((j + 1))
		done
	} >"$work/m$i.py"
	i=$((i + 1))
done
"$FERRY" init "$work" >/dev/null
"$FERRY" -C "$work" check --phase assess >/dev/null 2>&1 || true
n=$("$FERRY" -C "$work" findings --format json | grep -c '"id"' || true)

now() { date +%s.%N; }
elapsed() { echo "$2 - $1" | bc; }
repeat=5
keys=$(awk 'BEGIN { for (i = 0; i < 2000; i++) printf "j" }')

t0=$(now)
k=0
while [ "$k" -lt "$repeat" ]; do "$FERRY" -C "$work" findings --format json >/dev/null; k=$((k + 1)); done
t1=$(now)
k=0
while [ "$k" -lt "$repeat" ]; do FERRY_HEADLESS=120x40 FERRY_KEYS="" "$FERRY" "$work"; k=$((k + 1)); done
t2=$(now)
k=0
while [ "$k" -lt "$repeat" ]; do FERRY_HEADLESS=120x40 FERRY_KEYS="$keys" "$FERRY" "$work"; k=$((k + 1)); done
t3=$(now)

base=$(elapsed "$t0" "$t1")
first=$(elapsed "$t1" "$t2")
moves=$(elapsed "$t2" "$t3")
echo "tui_bench: $n findings, $repeat runs each"
printf '  baseline  ferry findings --format json   %8.3f s/run\n' "$(echo "$base / $repeat" | bc -l)"
printf '  tui       first screen (headless)        %8.3f s/run   ratio %.2f   (goal: under 0.200 s: %s)\n' \
	"$(echo "$first / $repeat" | bc -l)" "$(echo "$first / $base" | bc -l)" \
	"$(if [ "$(echo "$first / $repeat < 0.2" | bc -l)" = 1 ]; then echo met; else echo not met; fi)"
printf '  tui       one cursor move                %8.3f ms\n' \
	"$(echo "($moves - $first) * 1000 / ($repeat * 2000)" | bc -l)"

# cells painted: the first screen alone, then 2 000 moves within the first page
# (j k j k …: two list rows and the detail change), then 2 000 moves down (the
# list scrolls by one row at each move past the first page)
cells() { sed -n 's/^cells //p' "$work/stats"; }
painted() { FERRY_UI_STATS="$work/stats" FERRY_HEADLESS=120x40 FERRY_KEYS="$1" "$FERRY" "$work"; cells; }
c0=$(painted "")
screen=$(sed -n 's/^screen //p' "$work/stats")
jk=$(awk 'BEGIN { for (i = 0; i < 1000; i++) printf "jk" }')
c1=$(painted "$jk")
c2=$(painted "$keys")
per() { echo "($1 - $c0) / 2000" | bc -l; }
printf '  tui       cells painted per move, in the page  %6.0f   (full screen %s: ratio %.2f)\n' \
	"$(per "$c1")" "$screen" "$(echo "$(per "$c1") / $screen" | bc -l)"
printf '  tui       cells painted per move, scrolling    %6.0f   (full screen %s: ratio %.2f)\n' \
	"$(per "$c2")" "$screen" "$(echo "$(per "$c2") / $screen" | bc -l)"
