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
finish
