#!/bin/sh
# The top risks of the assessment name five different pieces of work: a library imported
# in many files (litgpt imports bitsandbytes in six) is one risk, not five copies of it.
. "$(dirname "$0")/lib.sh"

p="$work/p"
mkdir -p "$p"
for n in 1 2 3 4 5 6; do
	printf 'import torch\nimport bitsandbytes as bnb\n\n\ndef layer%s(n):\n    return bnb.nn.Linear8bitLt(n, n)\n' "$n" >"$p/quant$n.py"
done
printf 'import torch\nimport triton\n\n\n@triton.jit\ndef kernel(x):\n    pass\n' >"$p/kernels.py"
"$FERRY" init "$p" >/dev/null
expect_exit 0 "check" -- "$FERRY" -C "$p" check --phase assess
expect_exit 0 "report" -- "$FERRY" -C "$p" report --format json --section assessment --output "$work/a.json"
python3 - "$work/a.json" <<'PY' && ok "each library is one top risk" || fail "a library repeated among the top risks: $(head -c 800 "$work/a.json")"
import json, sys
risks = json.load(open(sys.argv[1]))["assessment"]["top_risks"]
libs = [r["message"].split("`")[1] for r in risks]
assert len(libs) == len(set(libs)), libs
assert {"bitsandbytes", "triton"} <= set(libs), libs
PY

finish
