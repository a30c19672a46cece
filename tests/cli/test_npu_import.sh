#!/bin/sh
# A file written for the NPU (it imports torch_npu as received) indexes NPUs with its
# integers; a GPU file that the migration gives `import torch_npu` does not become one:
# its `device=1` still asks for a GPU and stays open until it is changed (adapt.device_index
# rewrites `.to(0)` itself).
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
[ "$(open_index)" = "train.py:6" ] && ok "after the fixes, device=1 (left to a person) is still open" \
	|| fail "after the fixes: '$(open_index)'"
grep -q 'model.to("npu:0")' "$p/train.py" && ok "adapt.device_index named the NPU in .to(0)" || fail ".to(0) not rewritten"
fixed_index() { "$FERRY" -C "$p" findings --plugin assess.device_index --status fixed --format json |
	python3 -c 'import json,sys; print(" ".join(sorted("%s:%s" % (f["file"], f["line"]) for f in json.load(sys.stdin)["findings"])))'; }
[ "$(fixed_index)" = "train.py:4" ] && ok "only the rewritten index is shown as fixed, not one the import alone touched" \
	|| fail "fixed: '$(fixed_index)'"

finish
