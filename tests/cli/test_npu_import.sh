#!/bin/sh
# A file written for the NPU (it imports torch_npu as received) indexes NPUs with its
# integers; a GPU file that the migration gives `import torch_npu` does not become one:
# its `.to(0)` and `device=1` still ask for a GPU and stay open until they are changed.
. "$(dirname "$0")/lib.sh"

p="$work/proj"
mkdir -p "$p"
printf 'import torch\n\nmodel = torch.nn.Linear(4, 2).cuda()\nmodel.to(0)\nx = torch.zeros(2, device=1)\n' >"$p/train.py"
printf 'import torch\nimport torch_npu\n\ndef place(t, rank):\n    return t.to(rank)\n' >"$p/npu_backend.py"
"$FERRY" init "$p" >/dev/null 2>&1 || fail "init"
"$FERRY" -C "$p" check >/dev/null 2>&1
open_index() { "$FERRY" -C "$p" findings --plugin assess.device_index --status open --format json |
	python3 -c 'import json,sys; print(" ".join(sorted("%s:%s" % (f["file"], f["line"]) for f in json.load(sys.stdin)["findings"])))'; }
[ "$(open_index)" = "train.py:4 train.py:5" ] && ok "the GPU file's indices are reported, the NPU file's not" \
	|| fail "before the fixes: '$(open_index)'"
"$FERRY" -C "$p" fix --all --phase adapt --yes >/dev/null 2>&1
grep -q '^import torch_npu' "$p/train.py" && ok "the adapt fixes add import torch_npu" || fail "no torch_npu import added"
"$FERRY" -C "$p" check >/dev/null 2>&1
[ "$(open_index)" = "train.py:5 train.py:6" ] && ok "after the import is added, the indices are still open" \
	|| fail "after the fixes: '$(open_index)'"
"$FERRY" -C "$p" findings --plugin assess.device_index --status fixed --format json | python3 -c 'import json,sys; sys.exit(1 if json.load(sys.stdin)["findings"] else 0)' \
	&& ok "none of them is shown as fixed" || fail "an index finding was marked fixed by the import"

finish
