#!/bin/sh
# The effort estimate counts a piece of work once: the torch 0.3 reads of a number in one
# file (loss.data[0], loss.data.cpu().numpy()[0] ...) are one unit, each needing a .item().
. "$(dirname "$0")/lib.sh"

p="$work/p"
cp -R "$top/tests/plugins/legacy_torch/project" "$p"
"$FERRY" init "$p" >/dev/null
expect_exit 0 "check" -- "$FERRY" -C "$p" check --phase assess
expect_exit 0 "status" -- "$FERRY" -C "$p" status
# two legacy Functions, train.py's six reads as one unit, one volatile flag
expect_grep "0.5 × 4 versions" "$work/out" "the reads of a number in train.py weigh as one unit"

finish
