#!/bin/sh
# A finding keeps its identity when only the lines around it change. Its fingerprint hashes
# the matched code with the line before and after it (so identical lines in different
# places stay distinct), so an adapt edit on the line above an untouched finding used to
# close it as "fixed" and open a new one: the change record said NCCL_DEBUG was fixed and
# open at once, and a waiver on it was lost.
. "$(dirname "$0")/lib.sh"

p="$work/proj"
mkdir -p "$p/scripts"
cat >"$p/scripts/launch.sh" <<'EOF'
#!/bin/sh
export CUDA_VISIBLE_DEVICES=0,1
export NCCL_DEBUG=INFO
torchrun --nproc_per_node=2 train.py
EOF
printf 'import torch\n\nx = torch.randn(2).cuda()\n' >"$p/train.py"
"$FERRY" init "$p" >/dev/null
"$FERRY" -C "$p" check --phase assess >/dev/null 2>&1
nccl_id() { "$FERRY" -C "$p" findings --phase assess --format json | python3 -c '
import json, sys
fs = [f for f in json.load(sys.stdin)["findings"] if "NCCL_DEBUG" in f["message"]]
print(" ".join("%s:%s" % (f["id"], f["status"]) for f in fs))'; }
before=$(nccl_id)
case "$before" in *:open) ok "the NCCL_DEBUG finding is open ($before)" ;; *) fail "no NCCL_DEBUG finding: '$before'" ;; esac
id=${before%%:*}
expect_exit 0 "it can be waived" -- "$FERRY" -C "$p" waive "$id" --reason "the launcher sets it for the cluster"

# the line above it changes (as adapt's env-var fix does), the finding's own line does not
sed -i 's/CUDA_VISIBLE_DEVICES/ASCEND_RT_VISIBLE_DEVICES/' "$p/scripts/launch.sh"
expect_exit 0 "a check after the edit" -- "$FERRY" -C "$p" check --phase assess
after=$(nccl_id)
[ "$after" = "$id:waived" ] && ok "the same finding, still waived ($after)" ||
	fail "NCCL_DEBUG's finding changed identity: before $id:waived, after '$after'"

# a line inserted above moves it: still the same finding
sed -i '2i # cluster settings' "$p/scripts/launch.sh"
"$FERRY" -C "$p" check --phase assess >/dev/null 2>&1
[ "$(nccl_id)" = "$id:waived" ] && ok "moved by an inserted line: the same finding" ||
	fail "moved by an inserted line: '$(nccl_id)'"

# identical constructs in two places stay two findings, each with its own identity
printf 'import torch\n\nx = torch.randn(2).cuda()\n\n\ny = 1\nx = torch.randn(2).cuda()\n' >"$p/train.py"
"$FERRY" -C "$p" check --phase assess >/dev/null 2>&1
ids1=$("$FERRY" -C "$p" findings --plugin assess.device_calls --format json | python3 -c 'import json,sys; print(sorted(f["id"] for f in json.load(sys.stdin)["findings"] if f["status"] == "open"))')
sed -i 's/^y = 1$/y = 2/' "$p/train.py"
"$FERRY" -C "$p" check --phase assess >/dev/null 2>&1
ids2=$("$FERRY" -C "$p" findings --plugin assess.device_calls --format json | python3 -c 'import json,sys; print(sorted(f["id"] for f in json.load(sys.stdin)["findings"] if f["status"] == "open"))')
[ "$ids1" = "$ids2" ] && ok "two identical constructs keep their ids when a neighbour of one changes ($ids2)" ||
	fail "identical constructs: $ids1 before, $ids2 after"
expect_exit 0 "the record verifies" -- "$FERRY" -C "$p" verify
finish
