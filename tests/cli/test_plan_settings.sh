#!/bin/sh
# The resource plan's settings take only what can be planned with.
# The target SoC is a name ATC's --soc_version takes (plugins/data/soc_names.json): a name of
# no known form is refused by `ferry config target.soc` and `ferry init --target` with one
# line and exit 2, before anything is written; a chip name without the Ascend prefix is told
# the name it should be; the real names of npu-smi listings are taken.
. "$(dirname "$0")/lib.sh"
p="$work/proj"
make_project "$p"

expect_exit 2 "init --target of an unknown SoC" -- "$FERRY" init "$p" --target Ascend999
expect_grep "init --target Ascend999: not an Ascend SoC name" "$work/err" "the refusal names the option and the value"
expect_grep "Ascend310P\*" "$work/err" "and lists the forms known"
[ "$(wc -l <"$work/err")" -eq 1 ] && ok "in one line" || fail "the refusal is $(wc -l <"$work/err") lines"
[ ! -e "$p/.ferry" ] && ok "and no engagement is started" || fail "init --target Ascend999 left $p/.ferry"

expect_exit 2 "init --target of a chip name without Ascend" -- "$FERRY" init "$p" --target 910B2
expect_grep "910B2: an Ascend SoC name starts with Ascend.*: Ascend910B2" "$work/err" "the refusal gives the name it should be"

expect_exit 0 "init --target of a family name" -- "$FERRY" init "$p" --target Ascend910B
for soc in Ascend910B2 Ascend910B4-1 Ascend310P3 Ascend310B1 Ascend910 Ascend910_9391 Ascend310; do
	expect_exit 0 "config target.soc $soc" -- "$FERRY" -C "$p" config target.soc "$soc"
done
for soc in Ascend999 ascend910b Ascend910B2x "Ascend910B2 " A100 ""; do
	expect_exit 2 "config target.soc '$soc' is refused" -- "$FERRY" -C "$p" config target.soc "$soc"
done
expect_grep "config target.soc : not an Ascend SoC name" "$work/err" "the refusal names the key"
"$FERRY" -C "$p" config target.soc >"$work/got" 2>&1
expect_grep "^Ascend310$" "$work/got" "a refused value leaves the last one taken"

# a model of 0 parameters sizes nothing (the memory and parallel advice would read it as
# unset): refused, as any size at or below 0; 90 million parameters is 0.09
expect_exit 2 "config model.params_b 0 is refused" -- "$FERRY" -C "$p" config model.params_b 0
expect_grep "model.params_b 0: out of range; it takes a size in billions of parameters above 0" "$work/err" "saying what it takes"
expect_exit 0 "config model.params_b 0.09" -- "$FERRY" -C "$p" config model.params_b 0.09
# a negative value reads as an option to the command line: said for what it is
expect_exit 2 "config target.cards -1 is refused" -- "$FERRY" -C "$p" config target.cards -1
expect_grep "config: -1: ferry takes no negative numbers" "$work/err" "as a negative number, not an unknown option"

finish
