#!/bin/sh
# Profile benchmark: a kernel_details.csv of PROFILE_MB megabytes (default 2048) written at
# bench time by tests/fixtures/profile/make_profiles.py, ingested, then analysed by
# `ferry check --plugin tune.profile` (app/profile.c streaming the file). Prints the wall
# time and peak RSS of the check next to `wc -l` over the same file in the same run
# (warm page cache), and the ratio; then the same check again, with the reading the first
# one kept in .ferry/cache (what every later re-judging costs). The file is deleted
# afterwards. Not part of
# `make test`: `make bench` runs it after the assessment benchmark.
#   PROFILE_MB=300 sh tests/bench/profile_bench.sh      a quick run
set -eu
cd "$(dirname "$0")/../.."

mb=${PROFILE_MB:-2048}
ferry=${FERRY:-./ferry}
python=${PYTHON:-python3}
dir=${BENCH_DIR:-build/bench/profile}
[ -x "$ferry" ] || { echo "profile bench: $ferry not built" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "profile bench: /usr/bin/time is needed for peak memory" >&2; exit 2; }
rm -rf "$dir"
mkdir -p "$dir/proj"
trap '[ -n "${BENCH_KEEP:-}" ] || rm -rf "$dir"' EXIT INT TERM
csv="$dir/kernel_details.csv"
"$python" tests/fixtures/profile/make_profiles.py big "$csv" "$mb"
bytes=$(wc -c <"$csv")
"$ferry" init "$dir/proj" >/dev/null
"$ferry" -C "$dir/proj" ingest profile "$csv" --label bench >/dev/null
cat "$csv" >/dev/null # warm the page cache for both contenders

# timed NAME CMD...: wall seconds and peak RSS (KiB) into $t and $rss
timed() {
	name=$1
	shift
	/usr/bin/time -f '%e %M' -o "$dir/$name.time" "$@" >"$dir/$name.out" 2>"$dir/$name.err" || [ $? -eq 1 ]
	t=$(tail -n 1 "$dir/$name.time" | cut -d' ' -f1)
	rss=$(tail -n 1 "$dir/$name.time" | cut -d' ' -f2)
}
timed wc wc -l "$csv"
wc_t=$t wc_rss=$rss
rm -rf "$dir/proj/.ferry/cache" # the ingest's re-judging kept its reading: read it afresh
timed ferry "$ferry" -C "$dir/proj" check --plugin tune.profile
ferry_t=$t ferry_rss=$rss
grep -q "top operator types" "$dir/ferry.out" || { echo "profile bench: no findings" >&2; cat "$dir/ferry.err" >&2; exit 1; }
timed kept "$ferry" -C "$dir/proj" check --plugin tune.profile
kept_t=$t kept_rss=$rss
[ "$(grep -v '^run [0-9]*:' "$dir/ferry.out")" = "$(grep -v '^run [0-9]*:' "$dir/kept.out")" ] || { echo "profile bench: the kept reading gave other findings" >&2; exit 1; }
rows=$(cat "$dir/wc.out" | cut -d' ' -f1)

printf '\nprofile benchmark: kernel_details.csv of %s MiB (%s rows), %s cores\n\n' \
	"$((bytes / 1048576))" "$rows" "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)"
printf '%-44s %8s %12s %10s\n' contender "wall s" "peak RSS" "vs wc -l"
awk -v a="$wc_t" -v b="$ferry_t" -v ra="$wc_rss" -v rb="$ferry_rss" -v c="$kept_t" -v rc="$kept_rss" 'BEGIN {
	printf "%-44s %8.2f %9d KiB %9.1fx\n", "wc -l", a, ra, 1
	printf "%-44s %8.2f %9d KiB %9.1fx\n", "ferry check --plugin tune.profile", b, rb, (a > 0 ? b / a : 0)
	printf "%-44s %8.2f %9d KiB %9.2fx\n", "the same check, reading kept (.ferry/cache)", c, rc, (a > 0 ? c / a : 0)
}'
