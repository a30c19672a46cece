#!/bin/sh
# tune.loss_curves says what is still to do about the loss curves, and only that: once the
# newest GPU and NPU logs are compared, tune.acceptance gives the verdict and the advice to
# compare goes; a newer log brings it back. The comparison's figures stay readable when the
# NPU loss explodes (a relative error of 7e26 % was printed digit by digit).
. "$(dirname "$0")/lib.sh"

fx="$top/tests/fixtures/loss"
p="$work/proj"
make_project "$p"
"$FERRY" init "$p" >/dev/null
"$FERRY" -C "$p" ingest loss-log "$fx/gpu_plain.log" --label gpu >/dev/null
"$FERRY" -C "$p" ingest loss-log "$fx/npu_plain.log" --label npu >/dev/null
curves() { "$FERRY" -C "$p" check --plugin tune.loss_curves --format json 2>/dev/null |
	python3 -c 'import json,sys; print("\n".join(f["message"] for f in json.load(sys.stdin)["findings"] if f["status"] == "open"))'; }
case "$(curves)" in *"Loss logs of both runs are on record"*) ok "both logs on record: compare them" ;;
	*) fail "no advice to compare: '$(curves)'" ;; esac
"$FERRY" -C "$p" compare loss gpu npu >/dev/null 2>&1
[ -z "$(curves)" ] && ok "after the comparison, no advice to compare again" || fail "still advised: '$(curves)'"
"$FERRY" -C "$p" ingest loss-log "$fx/npu_blowup_plain.log" --label npu >/dev/null
case "$(curves)" in *"newer than the latest comparison"*) ok "a newer NPU log brings the advice back" ;;
	*) fail "a newer log was not noticed: '$(curves)'" ;; esac

expect_exit 1 "the blown-up run fails" -- "$FERRY" -C "$p" compare loss gpu npu
if grep -Eq '[0-9]{10,}\.[0-9]+%' "$work/out"; then
	fail "a relative error printed digit by digit: $(grep -Eo '[0-9]{10,}\.[0-9]+%' "$work/out" | head -1)"
else
	ok "huge relative errors are printed with an exponent"
fi
expect_grep "e+2[0-9]%" "$work/out" "the exploded step's error reads as a power of ten"
finish
