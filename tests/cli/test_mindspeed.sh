#!/bin/sh
# environment.mindspeed on Megatron-LM projects shaped like the real repository (its
# megatron/core/package_info.py and pretrain_gpt.py header): core_r0.8.0 is paired with
# MindSpeed 2.0.0_core_r0.8.0 and given the guide's install commands; today's Megatron
# (core 0.20.0) and a pip megatron-core==0.10.0 pin have no MindSpeed; a probe without
# MindSpeed is an error (the project imports the adaptor), a host torch or Python the
# paired releases were not made for is a warning; a project that is not Megatron gets
# nothing.
. "$(dirname "$0")/lib.sh"
probe=$top/tests/plugins/environment/healthy_910b/probe.json

# megatron_project DIR MAJOR MINOR PATCH: a Megatron-LM checkout's version file and the
# head of pretrain_gpt.py with MindSpeed's adaptor imported under torch
megatron_project() {
	mkdir -p "$1/megatron/core"
	printf '# Copyright (c) 2023, NVIDIA CORPORATION.  All rights reserved.\n\n\nMAJOR = %s\nMINOR = %s\nPATCH = %s\nPRE_RELEASE = %s\n\nVERSION = (MAJOR, MINOR, PATCH, PRE_RELEASE)\n' "$2" "$3" "$4" "''" >"$1/megatron/core/package_info.py"
	printf 'import os\nimport torch\nimport mindspeed.megatron_adaptor\nfrom functools import partial\n\nfrom megatron.training import get_args\nfrom megatron.core import mpu\n' >"$1/pretrain_gpt.py"
	"$FERRY" init "$1" >/dev/null 2>&1 || fail "init $1"
}
# probe_with NAME PYTHON: the healthy 910B probe with mindspeed/megatron_core asked, torch
# replaced and python version set; mindspeed installed unless "-"
probe_with() {
	python3 - "$probe" "$work/$1.json" "$2" "$3" "$4" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
pk = d["python"]["packages"]
pk["mindspeed"] = None if sys.argv[5] == "-" else sys.argv[5]
pk["megatron_core"] = None
pk["torch"] = sys.argv[3]
d["python"]["version"] = sys.argv[4]
json.dump(d, open(sys.argv[2], "w"), sort_keys=True)
PY
}
findings() { "$FERRY" -C "$1" check --plugin environment.mindspeed >/dev/null 2>&1; "$FERRY" -C "$1" findings --plugin environment.mindspeed --format json >"$work/f.json"; }

p=$work/r080
megatron_project "$p" 0 8 0
findings "$p"
check_has info "Megatron core 0.8.0 (megatron/core/package_info.py) is paired with MindSpeed 2.0.0_core_r0.8.0, core_r0.8.0" "core_r0.8.0 is paired with MindSpeed 2.0.0"
check_has info "git clone -b 2.0.0_core_r0.8.0 https://gitee.com/ascend/MindSpeed.git && pip3 install -e MindSpeed" "the guide's install commands, with the branch"
check_has info "pip3 uninstall -y mindspeed" "an older MindSpeed is removed first"

probe_with none 2.1.0+cpu 3.9.18 -
expect_exit 0 "ingest a probe without MindSpeed" -- "$FERRY" -C "$p" ingest env-probe "$work/none.json"
findings "$p"
check_has error "MindSpeed is not installed on a2-node-01" "MindSpeed missing on the host is an error"
check_has error "import mindspeed.megatron_adaptor" "the error says where the project stops"
if has warning "made for PyTorch"; then fail "torch 2.1.0 is what the pair is made for"; else ok "torch 2.1.0 is what the pair is made for"; fi

probe_with newer 2.4.0+cpu 3.11.4 2.0.0
expect_exit 0 "ingest a probe with MindSpeed, torch 2.4.0 and Python 3.11" -- "$FERRY" -C "$p" ingest env-probe "$work/newer.json"
findings "$p"
if "$FERRY" -C "$p" findings --plugin environment.mindspeed --status open --format json | grep -q "is not installed"; then
	fail "an installed MindSpeed clears the error"
else ok "an installed MindSpeed clears the error"; fi
check_has warning "MindSpeed's version table gives PyTorch 2.1.0 for Megatron core 0.8 (core_r0.8.0), but a2-node-01" "a torch the pair was not made for is a warning"
check_has info "no more maintenance from 2025-09-30" "the release's end of maintenance is said"
check_has warning "made for Python 3.8, 3.9, 3.10, but a2-node-01" "a Python the pair was not made for is a warning"

q=$work/head
megatron_project "$q" 0 20 0
findings "$q"
check_has warning "No MindSpeed release is made for Megatron core 0.20.0 (megatron/core/package_info.py)" "today's Megatron has no MindSpeed"
check_has warning "core 0.9.0: core_r0.9.0; core 0.8.0: 2.0.0_core_r0.8.0, core_r0.8.0; core 0.7.0:" "the pairs MindSpeed has are listed, newest Megatron first"

# the commit MindSpeed's README pins for core_r0.12.0 reports 0.12.1: the 0.12 pair
t=$work/r012
megatron_project "$t" 0 12 1
findings "$t"
check_has info "Megatron core 0.12.1 (megatron/core/package_info.py) is paired with MindSpeed master" "a patch release of core 0.12 pairs with MindSpeed's 0.12 branch"
check_has info "--transformer-impl local" "the 0.12 pair's launch requirement is said"

r=$work/pip
mkdir -p "$r"
printf 'megatron-core[mlm]~=0.10.0\ntorch==2.1.0\n' >"$r/requirements.txt"
printf 'import torch\nfrom megatron.core import parallel_state\n' >"$r/train.py"
"$FERRY" init "$r" >/dev/null 2>&1
findings "$r"
check_has warning "Megatron core 0.10.0 (requirements.txt:1)" "a megatron-core pin gives the version"

s=$work/plain
make_project "$s"
"$FERRY" init "$s" >/dev/null 2>&1
findings "$s"
if python3 -c 'import json,sys; sys.exit(len(json.load(open(sys.argv[1]))["findings"]))' "$work/f.json"; then ok "a project without Megatron gets nothing"; else fail "a project without Megatron gets nothing"; fi
finish
