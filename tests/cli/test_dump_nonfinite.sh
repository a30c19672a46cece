#!/bin/sh
# `ferry compare dump` on tensors torch makes with NaN, -inf and no elements at all:
# a NaN on both sides at the same place fails (the baseline's NaN cannot vouch for B,
# msprobe reads the pair as N/A); an attention mask's -inf on both sides at the same
# places leaves the finite elements to judge, and the pair is shown to double-check;
# a pair of empty tensors compares nothing (msprobe: None), so a comparison of nothing
# else cannot pass.
. "$(dirname "$0")/lib.sh"
need_torch

p="$work/proj"
make_project "$p"
"$FERRY" -C "$p" init >/dev/null 2>&1 || fail "init"
d="$work/t"
mkdir -p "$d/nan_a" "$d/nan_b" "$d/mask_a" "$d/mask_b" "$d/empty_a" "$d/empty_b" "$d/mixed_a" "$d/mixed_b"
"$py" - "$d" <<'PY'
import sys, torch
d = sys.argv[1]
torch.manual_seed(0)
x = torch.randn(4, 8)
# NaN from the computation itself, the same on both sides: log of negative activations
nan = torch.log(x)
torch.save(nan, d + "/nan_a/Functional.log.0.forward.output.0.pt")
torch.save(nan.clone(), d + "/nan_b/Functional.log.0.forward.output.0.pt")
# an attention mask's -inf before the softmax, B's finite scores a hair off
scores = x @ x.T
mask = torch.triu(torch.ones(4, 4, dtype=torch.bool), 1)
torch.save(scores.masked_fill(mask, float("-inf")), d + "/mask_a/Tensor.masked_fill.0.forward.output.0.pt")
torch.save((scores * (1 + 1e-7)).masked_fill(mask, float("-inf")), d + "/mask_b/Tensor.masked_fill.0.forward.output.0.pt")
# no elements: the boxes a detector keeps when none passes its threshold
empty = x[:0]
torch.save(empty, d + "/empty_a/Tensor.__getitem__.0.forward.output.0.pt")
torch.save(empty.clone(), d + "/empty_b/Tensor.__getitem__.0.forward.output.0.pt")
for side in ("a", "b"):
    torch.save(empty.clone(), d + "/mixed_%s/Tensor.__getitem__.0.forward.output.0.pt" % side)
    torch.save(x.clone(), d + "/mixed_%s/Functional.linear.0.forward.output.0.pt" % side)
PY

expect_exit 1 "NaN on both sides at the same place fails" -- "$FERRY" -C "$p" compare dump "$d/nan_a" "$d/nan_b"
expect_grep "verdict: FAIL" "$work/out" "the verdict is FAIL"
expect_grep "NaN on both sides" "$work/out" "the pair says why"
expect_exit 1 "the same in JSON" -- "$FERRY" -C "$p" compare dump "$d/nan_a" "$d/nan_b" --format json
python3 - "$work/out" <<'PY' && ok "JSON: the pair fails and counts its NaN" || fail "JSON: the pair fails and counts its NaN"
import json, sys
r = json.load(open(sys.argv[1]))
p = r["pairs"][0]
assert p["result"] == "fail" and "NaN" in p["note"], p
assert r["verdict"] == "fail", r["verdict"]
PY

expect_exit 0 "a mask's -inf on both sides leaves the finite elements to judge" -- \
	"$FERRY" -C "$p" compare dump "$d/mask_a" "$d/mask_b"
expect_grep "verdict: PASS" "$work/out" "the masked scores pass"
expect_grep "±inf on both sides at the same 6 places" "$work/out" "the pair is shown to double-check"

expect_exit 1 "empty tensors alone compare nothing" -- "$FERRY" -C "$p" compare dump "$d/empty_a" "$d/empty_b"
expect_grep "verdict: FAIL" "$work/out" "nothing compared is no PASS"
expect_grep "no elements on either side" "$work/out" "the pair says it holds nothing"
expect_exit 0 "an empty pair beside a compared one" -- "$FERRY" -C "$p" compare dump "$d/mixed_a" "$d/mixed_b" --format json
python3 - "$work/out" <<'PY' && ok "JSON: the empty pair is a warning, the comparison passes on the other" || fail "JSON: the empty pair is a warning"
import json, sys
r = json.load(open(sys.argv[1]))
res = {p["name"]: p["result"] for p in r["pairs"]}
assert res == {"Functional.linear.0.forward.output.0": "pass", "Tensor.__getitem__.0.forward.output.0": "warning"}, res
assert r["verdict"] == "pass" and r["summary"]["warnings"] == 1, (r["verdict"], r["summary"])
PY

finish
