#!/bin/sh
# ONNX reader benchmark: a multi-GB model (tests/tools/big_onnx.py, BENCH_ONNX_MB megabytes
# of weights, default 2560: over protobuf's 2 GB message limit), generated at bench time as
# a sparse file, once with inline weights and once with external data. ferry reads the
# graph in `ferry check --phase infer-convert` (ctx.onnx); baselines in the same run:
# `cat model > /dev/null` (reading the bytes once) and, for the external-data model,
# Python's onnx.load(load_external_data=False). Prints wall time and peak RSS of each, and
# time ratios to ferry's. Not part of `make test`: `make bench` runs it.
#   BENCH_ONNX_MB=512 sh tests/bench/onnx_bench.sh
set -eu
cd "$(dirname "$0")/../.."

mb=${BENCH_ONNX_MB:-2560}
ferry=$(cd "$(dirname "${FERRY:-./ferry}")" && pwd)/$(basename "${FERRY:-./ferry}")
python=${PYTHON:-python3}
onnx_python=${ONNX_PYTHON:-/usr/bin/python3}
dir=${BENCH_DIR:-build/bench/onnx}
[ -x /usr/bin/time ] || { echo "onnx bench: /usr/bin/time is needed for peak memory" >&2; exit 2; }
rm -rf "$dir"
mkdir -p "$dir/proj"
printf 'import torch\n' >"$dir/proj/train.py"
export FERRY_ACTOR="bench <bench@localhost>"
"$ferry" init "$dir/proj" >/dev/null
bytes=$((mb * 1024 * 1024))
"$python" tests/tools/big_onnx.py "$dir/inline.onnx" "$bytes"
"$python" tests/tools/big_onnx.py "$dir/ext.onnx" "$bytes" --external

# measure NAME CMD...: wall seconds and peak RSS (KB) into $dir/NAME.t
measure() {
	name=$1
	shift
	/usr/bin/time -f '%e %M' -o "$dir/$name.t" "$@" >/dev/null 2>"$dir/$name.err" ||
		{ echo "onnx bench: $name failed:"; cat "$dir/$name.err"; echo "- -" >"$dir/$name.t"; }
}

measure ingest_inline "$ferry" -C "$dir/proj" ingest onnx "$dir/inline.onnx" --label inline
measure check_inline "$ferry" -C "$dir/proj" check --phase infer-convert
measure cat_inline sh -c "cat '$dir/inline.onnx' >/dev/null"
rm -f "$dir/inline.onnx"
mkdir -p "$dir/proj2"
printf 'import torch\n' >"$dir/proj2/train.py"
"$ferry" init "$dir/proj2" >/dev/null
"$ferry" -C "$dir/proj2" ingest onnx "$dir/ext.onnx" --label ext >/dev/null
measure check_ext "$ferry" -C "$dir/proj2" check --phase infer-convert
measure cat_ext sh -c "cat '$dir/ext.onnx' '$dir/ext.data' >/dev/null"
if "$onnx_python" -c 'import onnx' 2>/dev/null; then
	measure onnx_load_ext "$onnx_python" -c "import onnx, sys; m = onnx.load(sys.argv[1], load_external_data=False); print(len(m.graph.node))" "$dir/ext.onnx"
fi

printf '\nONNX reader benchmark: %s MiB of weights\n\n' "$mb"
printf '%-52s %8s %10s %8s\n' contender "wall s" "peak MB" ratio
row() {
	base=$2
	set -- $(cat "$dir/$1.t") "$1" "$(cat "$dir/$base.t")"
	awk -v n="$3" -v t="$1" -v m="$2" -v b="$4" -v label="$LABEL" 'BEGIN {
		r = (b > 0 && t != "-") ? sprintf("%.1f", t / b) : "-";
		printf "%-52s %8s %10.1f %8s\n", label, t, m / 1024, r }'
}
LABEL="ferry check, inline weights (reads the graph)" row check_inline check_inline
LABEL="ferry ingest, inline weights (reader + SHA-256)" row ingest_inline check_inline
LABEL="cat model.onnx > /dev/null" row cat_inline check_inline
LABEL="ferry check, external data (graph + file check)" row check_ext check_ext
LABEL="cat model.onnx model.data > /dev/null" row cat_ext check_ext
[ -f "$dir/onnx_load_ext.t" ] && LABEL="onnx.load(load_external_data=False)" row onnx_load_ext check_ext
rm -rf "$dir"
