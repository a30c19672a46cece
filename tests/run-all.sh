#!/bin/sh
# Runs the whole suite: every unit-test binary, then each shell-driven suite
# (CLI, plugin goldens, TUI). Prints one closing line "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
# the suite expects English unless a test asks for Chinese itself (FERRY_LANG=zh ...)
export FERRY_LANG=en
build=${FERRY_BUILD:-build}
passed=0
failed=0
failures=""

run() { # name, command...
	name=$1
	shift
	if "$@"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		failures="$failures $name"
	fi
}

for t in "$build"/tests/test_*; do
	[ -x "$t" ] || continue
	run "$(basename "$t")" "$t"
done
for s in tests/cli/test_*.sh tests/plugins/run.sh tests/plugins/env_run.sh tests/plugins/design_run.sh tests/plugins/adapt_run.sh tests/plugins/late_run.sh tests/tui/run.sh tests/tui/engagement.sh tests/tui/zh_panes.sh tests/tui/settled.sh tests/tui/compare_views.sh; do
	[ -f "$s" ] || continue
	run "$s" sh "$s"
done

[ -z "$failures" ] || echo "failed:$failures"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
