#!/bin/sh
# The effort estimate counts a piece of work once: the torch 0.3 reads of a number in one
# file (loss.data[0], loss.data.cpu().numpy()[0] ...) are one unit, each needing a .item();
# a Lightning project's Trainers, Fabrics and requirement lines are one port of Lightning.
. "$(dirname "$0")/lib.sh"

# assessed FIXTURE: a copy of the plugin fixture assessed, its status in $work/out
assessed() {
	p="$work/$1"
	cp -R "$top/tests/plugins/$1/project" "$p"
	"$FERRY" init "$p" >/dev/null
	expect_exit 0 "check $1" -- "$FERRY" -C "$p" check --phase assess
	expect_exit 0 "status $1" -- "$FERRY" -C "$p" status
}

assessed legacy_torch
# two legacy Functions, train.py's six reads as one unit, one volatile flag
expect_grep "0.5 × 4 versions" "$work/out" "the reads of a number in train.py weigh as one unit"

assessed lightning
# the project, three Trainers or Fabrics and two requirement lines: one library to port
expect_grep "2 × 1 third-party libraries" "$work/out" "Lightning's settings and requirements weigh as one library"

finish
