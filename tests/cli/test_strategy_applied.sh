#!/bin/sh
# After `ferry fix` has rewritten the CUDA sites, the strategy's reason says so: it does not
# call them few (litgpt's 131 rewritten sites were reported as "Few CUDA-specific sites").
. "$(dirname "$0")/lib.sh"

p="$work/p"
mkdir -p "$p"
printf 'import torch\n\n\ndef step(model, x):\n    x = x.cuda()\n    torch.cuda.synchronize()\n    return model(x).sum().item()\n' >"$p/train.py"
"$FERRY" init "$p" >/dev/null
expect_exit 0 "check" -- "$FERRY" -C "$p" check
expect_exit 0 "fix" -- "$FERRY" -C "$p" fix --all --yes
expect_exit 0 "check again" -- "$FERRY" -C "$p" check
expect_exit 0 "report" -- "$FERRY" -C "$p" report --format json --section assessment --output "$work/a.json"
python3 - "$work/a.json" <<'PY' && ok "the reason says the rewrites are done" || fail "strategy after the fixes: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["assessment"]["strategy"])' "$work/a.json")"
import json, sys
st = json.load(open(sys.argv[1]))["assessment"]["strategy"]
assert st["recommended"] == "tool", st
assert "Few CUDA-specific sites" not in st["reason"], st
assert "mechanical rewrite are fixed" in st["reason"], st
PY

finish
