#!/bin/sh
# ferry ingest overflow and infer-optimize.overflow on the overflow data of seed 003
# §3.7.2 (tests/fixtures/overflow): the AI Core status register decoded bit by bit with
# the cause and the fix, the operator's task and stream named; unknown bits said; a clean
# dump is info; malformed data is refused with one line; the guidance says how to turn
# dump_debug on.
. "$(dirname "$0")/lib.sh"
fx=$top/tests/fixtures/overflow
p=$work/p
make_project "$p"
"$FERRY" init "$p" >/dev/null 2>&1 || fail "init"
"$FERRY" -C "$p" config target.soc Ascend310P3 >/dev/null 2>&1

expect_exit 0 "ingest the guide's sample" -- "$FERRY" -C "$p" ingest overflow "$fx/float_overflow.json" --label sample
"$FERRY" -C "$p" findings --plugin infer-optimize.overflow --status open --format json >"$work/f.json"
check_has error "the AI Core status register reads 32 (0x00000020): 0x00000020 a floating-point computation overflowed; model 514, stream 563, task 57" "status 32 is a floating-point overflow, with the operator's ids"
check_has error "--keep_dtype" "the fix keeps the operator in float32"
check_has error "<op_type>.<op_name>.57.563.<timestamp>" "the operator's dump file is named"
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["findings"]))' "$work/f.json")
[ "$n" -eq 1 ] && ok "the zero DHA and L2 sections give nothing" || fail "$n findings for one overflowing unit"

expect_exit 0 "ingest the worked example" -- "$FERRY" -C "$p" ingest overflow "$fx/int_and_cast.json" --label example
"$FERRY" -C "$p" findings --plugin infer-optimize.overflow --status open --format json >"$work/f.json"
check_has error "reads 272 (0x00000110): 0x00000010 an integer addition, subtraction, multiplication or multiply-add overflowed; 0x00000100 a conversion from FP32 or a 32-bit signed integer to FP16 overflowed" "272 is decoded as 0x10 + 0x100, as the guide does"

python3 - "$fx/float_overflow.json" "$work/odd.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["AI Core"]["status"] = 0x1000 | 0x400
json.dump(d, open(sys.argv[2], "w"))
PY
"$FERRY" -C "$p" ingest overflow "$work/odd.json" --label odd >/dev/null 2>&1
"$FERRY" -C "$p" findings --plugin infer-optimize.overflow --status open --format json >"$work/f.json"
check_has error "0x00000400 a Cube (matrix unit) accumulation overflowed; 0x00001000, bits the guide does not describe" "an undocumented bit is said, not guessed"

q=$work/q
make_project "$q"
"$FERRY" init "$q" >/dev/null 2>&1
expect_exit 0 "ingest a clean dump" -- "$FERRY" -C "$q" ingest overflow "$fx/clean.json"
"$FERRY" -C "$q" findings --plugin infer-optimize.overflow --format json >"$work/f.json"
check_has info "every status register reads 0" "a clean dump is info"

printf '{"AI Core": {"status": "32"}}\n' >"$work/bad.json"
expect_exit 3 "a status that is no number is refused" -- "$FERRY" -C "$q" ingest overflow "$work/bad.json"
one_line "$work/err" "the refusal is one line"
expect_grep "bad.json: not overflow data converted by msaccucmp" "$work/err" "the refusal names the file and the reason"
printf '\001\000binary' >"$work/bin.json"
expect_exit 3 "the raw OpDebug binary is refused" -- "$FERRY" -C "$q" ingest overflow "$work/bin.json"

expect_exit 0 "the precision check runs" -- "$FERRY" -C "$p" check --plugin infer-optimize.precision
expect_grep '"dump_debug": "on"' "$work/out" "the guidance gives the acl.json that writes overflow data"
finish
