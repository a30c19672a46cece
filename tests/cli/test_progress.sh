#!/bin/sh
# Progress lines of init and check: on a terminal stderr shows how far the baseline and
# the checks have come; piped or redirected, stderr carries nothing but real messages.
. "$(dirname "$0")/lib.sh"

p="$work/proj"
make_project "$p"
i=0
while [ "$i" -lt 40 ]; do
	printf 'import torch\nx = torch.zeros(%d).cuda()\n' "$i" >"$p/m$i.py"
	i=$((i + 1))
done

# piped: no progress at all
expect_exit 0 "init with stderr piped" -- "$FERRY" init "$p"
if [ -s "$work/err" ]; then fail "init wrote to a piped stderr"; sed 's/^/     | /' "$work/err" | head -3; else ok "init: nothing on a piped stderr"; fi
"$FERRY" -C "$p" check --phase assess >"$work/out" 2>"$work/err" | cat
if grep -q "checks done\|files parsed\|$(printf '\r')" "$work/err"; then
	fail "check wrote progress to a redirected stderr"
else
	ok "check: no progress on a redirected stderr"
fi
"$FERRY" -C "$p" check --phase assess --format json 2>&1 >/dev/null | cat >"$work/err"
if grep -q "checks done\|files parsed" "$work/err"; then fail "check wrote progress into a pipe"; else ok "check: no progress into a pipe"; fi

# on a terminal (a pseudo-terminal from script(1)): the progress lines appear
if command -v script >/dev/null 2>&1; then
	q="$work/tty"
	make_project "$q"
	cp "$p"/m*.py "$q/"
	script -qec "'$FERRY' init '$q' >/dev/null" /dev/null >"$work/tty-init" 2>&1
	expect_grep "baseline: [0-9]* files recorded" "$work/tty-init" "init: progress on a terminal"
	script -qec "'$FERRY' -C '$q' check --phase assess >/dev/null" /dev/null >"$work/tty-check" 2>&1
	expect_grep "checks done [0-9]*/[0-9]*, files parsed [0-9]*/[0-9]*" "$work/tty-check" "check: progress on a terminal"
else
	ok "script(1) not installed: the terminal half is skipped"
fi

finish
