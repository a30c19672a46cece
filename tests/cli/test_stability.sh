#!/bin/sh
# tune.stability on real loss logs (tests/fixtures/loss): a blown-up NPU run in a project
# that clips no gradients gets the migration guides' stabilising steps; a project that
# clips, in its code or in a launch script, does not; nor does a run that only stopped early.
. "$(dirname "$0")/lib.sh"

fx="$top/tests/fixtures/loss"
p="$work/proj"
make_training_project "$p"
"$FERRY" init "$p" >/dev/null

stability() { "$FERRY" -C "$p" check --phase tune --format json >"$work/tune.json" 2>/dev/null
	python3 - "$work/tune.json" <<'PY'
import json, sys
fs = [f for f in json.load(open(sys.argv[1]))["findings"] if f["plugin"] == "tune.stability" and f.get("status", "open") == "open"]
if fs:
    print(fs[0]["message"])
PY
}

"$FERRY" -C "$p" compare loss "$fx/gpu_plain.log" "$fx/npu_blowup_plain.log" >/dev/null 2>&1
stability >"$work/msg"
expect_grep "turns NaN/inf at step 42 and stays there" "$work/msg" "a blow-up without clipping is reported, with its step"
expect_grep "nothing in the project clips gradients" "$work/msg" "the finding says nothing clips"
"$FERRY" -C "$p" check --phase tune >"$work/out" 2>&1
expect_grep "clip_grad_norm_(model.parameters(), 1.0)" "$work/out" "the suggestion gives the clipping call and threshold"

printf '#!/bin/sh\ntorchrun pretrain_gpt.py --clip-grad 1.0 --lr-warmup-fraction 0.01\n' >"$p/launch.sh"
stability >"$work/msg"
[ -s "$work/msg" ] && fail "a launch script clipping with --clip-grad still reported" || ok "Megatron's --clip-grad in a launch script counts as clipping"
rm "$p/launch.sh"
sed -i 's/    opt.step()/    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n    opt.step()/' "$p/train.py"
stability >"$work/msg"
[ -s "$work/msg" ] && fail "a project that clips still reported" || ok "clip_grad_norm_ in the code counts as clipping"
sed -i '/clip_grad_norm_/d' "$p/train.py"

"$FERRY" -C "$p" compare loss "$fx/gpu_plain.log" "$fx/npu_short_plain.log" >/dev/null 2>&1
stability >"$work/msg"
[ -s "$work/msg" ] && fail "a run that stopped early reported as diverging" || ok "a run that only stopped early is not a divergence"
"$FERRY" -C "$p" compare loss "$fx/gpu_plain.log" "$fx/npu_plain.log" >/dev/null 2>&1
stability >"$work/msg"
[ -s "$work/msg" ] && fail "a passing comparison reported" || ok "a passing comparison gives no finding"

finish
