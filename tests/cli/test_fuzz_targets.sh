#!/bin/sh
# Every fuzz target still builds against today's modules and runs its seed corpus without a
# crash: a target that no longer links, or whose harness the program outgrew, is a reader
# nobody fuzzes any more. (Fuzzing for longer is `make fuzz`.)
. "$(dirname "$0")/lib.sh"
cd "$top" || exit 1
if ! command -v "${CLANG:-clang}" >/dev/null 2>&1; then
	echo "skip fuzz targets: no clang (scripts/setup.sh installs it)"
	exit 0
fi
if FUZZ_SECONDS=0 sh tests/fuzz/run.sh >"$work/fuzz.log" 2>&1; then
	ok "every fuzz target builds and runs its corpus ($(grep -c '  FUZZ' "$work/fuzz.log") targets)"
else
	fail "fuzz targets: $(grep '^fuzz:' "$work/fuzz.log" | tail -1)"
	grep -E 'undefined reference|error:|failed on the input' "$work/fuzz.log" | head -5 | sed 's/^/     | /'
fi
echo "test_fuzz_targets.sh: $fails failure(s)"
exit $((fails > 100 ? 100 : fails))
