#!/bin/sh
# Python files in a declared encoding (PEP 263) are checked as Python reads them: a
# latin-1 file's CUDA call is found, ferry refuses to edit the file (its edits were planned
# on the UTF-8 text) and leaves its bytes alone; an unknown declared encoding and an
# undeclared non-UTF-8 file are each one warning naming the file and why.
. "$(dirname "$0")/lib.sh"

p="$work/p"
mkdir -p "$p"
printf '# -*- coding: latin-1 -*-\n# Auteur : Fran\347ois\nimport torch\nx = torch.zeros(2).cuda()\n' >"$p/legacy.py"
printf '# coding: klingon\nimport torch\ns = "\377"\n' >"$p/alien.py"
printf 'import torch\ns = "caf\351"\n' >"$p/undeclared.py"
cp "$p/legacy.py" "$work/legacy.orig"
"$FERRY" init "$p" >/dev/null 2>&1

expect_exit 0 "assess runs over files in other encodings" -- "$FERRY" -C "$p" check --phase assess
expect_grep "legacy.py:4:5" "$work/out" "the latin-1 file's .cuda() call is found"
expect_grep "alien.py: declares the encoding 'klingon', which this system cannot read" "$work/out" \
	"an unknown declared encoding is named"
expect_grep "undeclared.py: not UTF-8 and declares no encoding" "$work/out" "an undeclared non-UTF-8 file is named"

"$FERRY" -C "$p" check --phase adapt >/dev/null 2>&1
"$FERRY" -C "$p" fix --all --yes >"$work/out" 2>"$work/err"
expect_grep "legacy.py:4): the file is not UTF-8 (it declares another encoding), so ferry does not edit it" "$work/err" \
	"the fix is refused, naming the file"
cmp -s "$p/legacy.py" "$work/legacy.orig" && ok "the latin-1 file's bytes are untouched" ||
	fail "legacy.py changed"
finish
