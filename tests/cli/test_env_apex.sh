#!/bin/sh
# environment.apex: a project training with apex.amp (apex's documented form), probed
# hosts with no apex (error: the import fails), NVIDIA's apex 0.1 (error: CUDA kernels)
# and Ascend's adapted apex-0.1+ascend (info: what it supports); a probe that never asked
# for apex, and a project without apex, get nothing.
. "$(dirname "$0")/lib.sh"
probe=$top/tests/plugins/environment/healthy_910b/probe.json
p=$work/p
make_project "$p"
cat >"$p/train_amp.py" <<'PY'
import torch
from apex import amp

model = torch.nn.Linear(4, 2).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model, optimizer = amp.initialize(model, optimizer, opt_level="O1")
PY
"$FERRY" init "$p" >/dev/null 2>&1 || fail "init"

# with_apex NAME VERSION: the healthy probe whose apex is VERSION ("-": asked, absent;
# "unasked": a probe that does not list apex at all)
with_apex() {
	python3 - "$probe" "$work/$1.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
pk = d["python"]["packages"]
if sys.argv[3] == "unasked":
    pk.pop("apex", None)
else:
    pk["apex"] = None if sys.argv[3] == "-" else sys.argv[3]
json.dump(d, open(sys.argv[2], "w"), sort_keys=True)
PY
	"$FERRY" -C "${3:-$p}" ingest env-probe "$work/$1.json" >/dev/null 2>&1 || fail "ingest $1"
	"$FERRY" -C "${3:-$p}" findings --plugin environment.apex --status open --format json >"$work/f.json"
}
count() { python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["findings"]))' "$work/f.json"; }

with_apex unasked unasked
[ "$(count)" -eq 0 ] && ok "a probe that did not ask for apex says nothing" || fail "a probe that did not ask for apex says nothing"

with_apex none -
check_has error "imports apex (\`from apex import amp\`), but a2-node-01" "no apex on the host is an error"
check_has error "gitee.com/ascend/apex.git" "the advice gives Ascend's apex build"
check_has error "bash scripts/build.sh --python=3.10" "the build names the host's Python"
if python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["findings"]; sys.exit(0 if f[0]["file"] == "train_amp.py" and f[0]["line"] == 2 else 1)' "$work/f.json"; then
	ok "the finding points at the import"; else fail "the finding points at the import"; fi

with_apex nvidia 0.1
check_has error "apex 0.1, NVIDIA's build" "NVIDIA's apex is an error"
if has error "has no apex"; then fail "the newest probe replaces the older verdict"; else ok "the newest probe replaces the older verdict"; fi

with_apex ascend 0.1+ascend
check_has info "Ascend's adapted APEX 0.1+ascend" "Ascend's apex is named"
check_has info "combine_grad=True" "its combine_grad is advised"
[ "$(count)" -eq 1 ] && ok "no error is left" || fail "no error is left"

# timm's fast_norm.py guards its apex import and falls back; a layer Ascend's APEX does
# not ship fails only where unguarded
g=$work/g
make_project "$g"
mkdir -p "$g/layers"
cat >"$g/layers/fast_norm.py" <<'PY'
import torch

try:
    from apex.normalization.fused_layer_norm import fused_layer_norm_affine
    has_apex = True
except ImportError:
    has_apex = False
PY
"$FERRY" init "$g" >/dev/null 2>&1
with_apex gnone - "$g"
check_has info "inside try/except" "a guarded import without apex falls back: info"
[ "$(python3 -c 'import json,sys; print(sum(f["severity"] == "error" for f in json.load(open(sys.argv[1]))["findings"]))' "$work/f.json")" -eq 0 ] &&
	ok "a guarded import is no error" || fail "a guarded import is no error"
with_apex gnvidia 0.1 "$g"
check_has error "even where the import is guarded" "NVIDIA's apex is an error even behind try/except"
printf 'from apex.normalization import FusedLayerNorm\n' >"$g/layers/norm.py"
with_apex gascend 0.1+ascend "$g"
check_has error "imports apex.normalization.FusedLayerNorm (\`from apex.normalization import FusedLayerNorm\`), which Ascend's APEX" "a module Ascend's APEX does not ship fails unguarded"
check_has info "does not ship it, so the import falls back" "the guarded one falls back"

q=$work/q
make_project "$q"
"$FERRY" init "$q" >/dev/null 2>&1
with_apex plain - "$q"
[ "$(count)" -eq 0 ] && ok "a project without apex gets nothing" || fail "a project without apex gets nothing"
finish
