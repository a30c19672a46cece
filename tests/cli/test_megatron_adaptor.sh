#!/bin/sh
# Megatron-LM runs on Ascend through MindSpeed, which patches it at import: the advice is to
# keep Megatron and import MindSpeed's adaptor, never to replace Megatron; once the project
# imports the adaptor, Megatron is adapted, not a warning left on the porting list.
. "$(dirname "$0")/lib.sh"

p="$work/proj"
mkdir -p "$p"
printf 'torch==2.1.0\nmegatron-core==0.8.0\n' >"$p/requirements.txt"
cat >"$p/pretrain_gpt.py" <<'PY'
import torch
from megatron.core import parallel_state


def main():
    parallel_state.initialize_model_parallel()


if __name__ == "__main__":
    main()
PY
"$FERRY" init "$p" >/dev/null
megatron() { "$FERRY" -C "$p" check --phase assess --format json 2>/dev/null | python3 -c '
import json, sys
for f in json.load(sys.stdin)["findings"]:
    if f["plugin"] == "assess.gpu_libraries" and f["status"] == "open":
        print(f["severity"], "|", f["message"], "|", f["suggestion"])'; }
before=$(megatron)
case "$before" in *"Replace it with"*) fail "Megatron is to be replaced: $before" ;; *) ok "Megatron is not to be replaced" ;; esac
case "$before" in *"Keep it, and run it through MindSpeed"*) ok "keep it, through MindSpeed's adaptor" ;;
	*) fail "no advice to keep it through MindSpeed: $before" ;; esac
case "$before" in *warning*) ok "without the adaptor it is a warning" ;; *) fail "not a warning: $before" ;; esac

# a commented-out adaptor import adapts nothing
sed -i 's/^import torch$/import torch\n# import mindspeed.megatron_adaptor/' "$p/pretrain_gpt.py"
case "$(megatron)" in *warning*"Keep it, and run it through MindSpeed"*) ok "a commented-out adaptor import does not count" ;;
	*) fail "a commented-out adaptor import counted: $(megatron)" ;; esac
sed -i 's/^# import mindspeed.megatron_adaptor$/import mindspeed.megatron_adaptor/' "$p/pretrain_gpt.py"
after=$(megatron)
if printf '%s\n' "$after" | grep -v '^info' | grep -q .; then
	fail "with the adaptor imported, still: $(printf '%s\n' "$after" | grep -v '^info' | head -1)"
else
	ok "with the adaptor imported, the import and the dependency are info"
fi
case "$after" in *"runs on Ascend through"*"pretrain_gpt.py"*) ok "and name where the adaptor is imported" ;;
	*) fail "the adaptor is not named: $after" ;; esac
"$FERRY" -C "$p" report --format json --section unsupported --output "$work/unsup.json" >/dev/null 2>&1
python3 -c 'import json,sys; rows=json.load(open(sys.argv[1]))["unsupported"]; sys.exit(any("megatron" in r["message"].lower() for r in rows))' "$work/unsup.json" &&
	ok "Megatron is not on the unsupported list" || fail "Megatron is still on the unsupported list"

# A project that supports Megatron as an option (accelerate: its imports indented under
# `if is_megatron_lm_available():` or in a function) is not a Megatron project: its own
# NCCL backend is migrated, not kept "as Megatron checks it".
o="$work/optional"
mkdir -p "$o/lib"
cat >"$o/lib/megatron_lm.py" <<'PY'
from .imports import is_megatron_lm_available

if is_megatron_lm_available():
    from megatron.core import mpu


def add_logging_args(parser):
    from megatron.training.arguments import _add_logging_args
    return _add_logging_args(parser)
PY
printf 'def is_megatron_lm_available():\n    return False\n' >"$o/lib/imports.py"
printf 'import torch\n\n\ndef setup():\n    torch.distributed.init_process_group(backend="nccl")\n\n\ndef megatron_args():\n    from megatron.training import get_args\n    return get_args()\n' >"$o/lib/state.py"
"$FERRY" init "$o" >/dev/null
"$FERRY" -C "$o" check >/dev/null 2>&1
"$FERRY" -C "$o" findings >"$work/optional.txt" 2>&1
if grep -q "Megatron project" "$work/optional.txt"; then
	fail "an optional Megatron integration made a Megatron project: $(grep -m1 'Megatron project' "$work/optional.txt")"
else
	ok "an optional Megatron integration does not make a Megatron project"
fi
"$FERRY" -C "$o" fix --all --phase adapt --yes >/dev/null 2>&1
expect_grep 'backend="hccl"' "$o/lib/state.py" "and its own NCCL backend is migrated"

# Whether a project is built on Megatron does not depend on which check asks: the import
# is in a file without the backend, which the backend check is not offered.
t="$work/top"
mkdir -p "$t"
printf 'from megatron.core import mpu\n' >"$t/model.py"
printf 'import torch\n\ntorch.distributed.init_process_group(backend="nccl")\n' >"$t/launch.py"
"$FERRY" init "$t" >/dev/null
"$FERRY" -C "$t" check --phase assess >"$work/top.txt" 2>&1
expect_grep "stays as it is on Ascend in this Megatron project" "$work/top.txt" "a top-level Megatron import in another file makes a Megatron project"
finish
