#!/bin/sh
# Builds the libFuzzer targets with clang (AddressSanitizer + UndefinedBehaviorSanitizer)
# against the app modules they need, then runs each for ${FUZZ_SECONDS:-10} seconds from
# its seed corpus under tests/fuzz/corpus/<target>/. New inputs go to build/fuzz/corpus/,
# crash reproducers to build/fuzz/. Exits non-zero when any target crashes.
#   FUZZ_SECONDS=60 sh tests/fuzz/run.sh            all targets, one minute each
#   sh tests/fuzz/run.sh fuzz_query                 one target
# Every tests/fuzz/fuzz_*.c is a target; the app modules it links come from a line
# "fuzz-modules: a b c" in its source, else from the table in modules_for below.
set -eu
cd "$(dirname "$0")/../.."

CLANG=${CLANG:-clang}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
secs=${FUZZ_SECONDS:-10}
out=${FUZZ_BUILD:-build/fuzz}
grammar=build/grammar/package/src

command -v "$CLANG" >/dev/null || { echo "fuzz: $CLANG not found" >&2; exit 2; }
[ -f "$grammar/parser.c" ] || make grammar
mkdir -p "$out/obj"

pkgs="tree-sitter libcrypto libcjson"
cflags="-g -O1 -std=c11 -D_GNU_SOURCE -Iapp -Wall -Wextra $($PKG_CONFIG --cflags $pkgs)"
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
libs="$($PKG_CONFIG --libs $pkgs) -lpthread -lm"
# The static runtime, when installed, gives leak reports function names: the suppression in
# lsan.supp (a leak inside the runtime's own query parser) needs them.
static=$($PKG_CONFIG --variable=libdir tree-sitter)/libtree-sitter.a
if [ -f "$static" ]; then
	libs="$static $($PKG_CONFIG --libs libcrypto libcjson) -lpthread -lm"
fi

# Compiles $1 into $2 with the remaining flags when the object is missing or older.
compile() {
	src=$1 obj=$2
	shift 2
	if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ "$0" -nt "$obj" ]; then
		echo "  CC    $src"
		"$CLANG" "$@" -c -o "$obj" "$src"
	fi
}

# The generated grammar gets coverage and ASan but not our warnings or UBSan.
compile "$grammar/parser.c" "$out/obj/parser.o" -g -O1 -w -I"$grammar" \
	-fsanitize=fuzzer-no-link,address
compile "$grammar/scanner.c" "$out/obj/scanner.o" -g -O1 -w -I"$grammar" \
	-fsanitize=fuzzer-no-link,address
grammar_objs="$out/obj/parser.o $out/obj/scanner.o"

modules_for() {
	line=$(sed -n 's/.*fuzz-modules:[[:space:]]*\([a-z_ ]*\).*/\1/p' "tests/fuzz/$1.c" | head -n 1)
	if [ -n "$line" ]; then
		echo "$line"
		return
	fi
	case $1 in
	fuzz_pysrc | fuzz_query) echo "pysrc util err" ;;
	fuzz_artifact) echo "artifact util err" ;;
	*) echo "util err" ;;
	esac
}

if [ $# -gt 0 ]; then
	targets=$*
else
	targets=$(for f in tests/fuzz/fuzz_*.c; do basename "$f" .c; done)
fi
failed=""
for t in $targets; do
	objs=""
	for m in $(modules_for "$t"); do
		compile "app/$m.c" "$out/obj/$m.o" $cflags $san -fsanitize=fuzzer-no-link
		objs="$objs $out/obj/$m.o"
	done
	case " $objs " in
	*/pysrc.o*) objs="$objs $grammar_objs" ;;
	esac
	echo "  LD    $out/$t"
	# shellcheck disable=SC2086
	"$CLANG" $cflags $san -fsanitize=fuzzer -o "$out/$t" "tests/fuzz/$t.c" $objs $libs
	mkdir -p "$out/corpus/$t"
	seeds=""
	[ -d "tests/fuzz/corpus/$t" ] && seeds="tests/fuzz/corpus/$t"
	dict=""
	[ -f "tests/fuzz/$t.dict" ] && dict="-dict=tests/fuzz/$t.dict"
	echo "  FUZZ  $t for ${secs}s"
	# Failed queries reach the leak in lsan.supp; its stacks pass through the runtime, which
	# has no frame pointers, so that target unwinds the slow way.
	unwind=fast_unwind_on_malloc=1
	[ "$t" != fuzz_query ] || unwind=fast_unwind_on_malloc=0
	# shellcheck disable=SC2086
	if LSAN_OPTIONS="suppressions=tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}" \
		ASAN_OPTIONS="$unwind${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
		"$out/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
		-print_final_stats=1 -artifact_prefix="$out/$t-" $dict \
		"$out/corpus/$t" $seeds >"$out/$t.log" 2>&1; then
		grep -E '^(stat::number_of_executed_units|Done)' "$out/$t.log" | sed 's/^/        /' || true
	else
		echo "fuzz: $t crashed; see $out/$t.log and $out/$t-*" >&2
		tail -n 30 "$out/$t.log" >&2
		failed="$failed $t"
	fi
done
[ -z "$failed" ] || { echo "fuzz: failed:$failed" >&2; exit 1; }
echo "fuzz: all targets ran ${secs}s without a crash"
