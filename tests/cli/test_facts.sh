#!/bin/sh
# Facts the checks state, against the vendor's and upstreams' documentation: allocator
# settings that must not be combined, Megatron/MindSpeed launch settings that stay as
# they are, torch_npu/CANN pairings the release notes mark compatible, and third-party
# libraries that support Ascend themselves.
. "$(dirname "$0")/lib.sh"

# findings_of DIR PLUGIN: the JSON findings of one plugin into $work/f.json
findings_of() {
	"$FERRY" -C "$1" findings --plugin "$2" --format json >"$work/f.json"
}

# ---------------------------------------------------------------- allocator
a="$work/alloc"
make_project "$a"
"$FERRY" init "$a" >/dev/null
"$FERRY" -C "$a" config model.params_b 7 >/dev/null
"$FERRY" -C "$a" check --plugin tune.allocator >/dev/null 2>&1
findings_of "$a" tune.allocator
python3 - "$work/f.json" <<'PY' && ok "allocator advice: expandable segments alone" || fail "allocator advice"
import json, sys
fs = json.load(open(sys.argv[1]))["findings"]
assert len(fs) == 1, fs
s = fs[0]["suggestion"]
assert "expandable_segments:True" in s and "must not be combined with max_split_size_mb" in s, s
assert "add `max_split_size_mb" not in s, s
PY
printf '#!/bin/sh\nexport PYTORCH_NPU_ALLOC_CONF="expandable_segments:True,max_split_size_mb:128"\npython train.py\n' >"$a/run.sh"
"$FERRY" -C "$a" check --plugin tune.allocator >/dev/null 2>&1
findings_of "$a" tune.allocator
python3 - "$work/f.json" <<'PY' && ok "allocator: a setting combining them is a warning at its line" || fail "allocator conflict"
import json, sys
fs = [f for f in json.load(open(sys.argv[1]))["findings"] if f["status"] == "open"]
w = [f for f in fs if f["severity"] == "warning"]
assert len(w) == 1 and w[0]["file"] == "run.sh" and w[0]["line"] == 2, fs
assert "max_split_size_mb" in w[0]["message"], w[0]
PY

# ---------------------------------------------------------------- Megatron / MindSpeed
m="$work/mega"
mkdir -p "$m/megatron/training"
printf 'import torch\nfrom megatron.training import pretrain\n\nif __name__ == "__main__":\n    pretrain()\n' >"$m/pretrain_gpt.py"
printf 'import torch\n\ndef pretrain(backend="nccl"):\n    torch.distributed.init_process_group(backend)\n' >"$m/megatron/training/__init__.py"
printf '#!/bin/bash\nexport CUDA_DEVICE_MAX_CONNECTIONS=1\nexport CUDA_VISIBLE_DEVICES=0,1\ntorchrun --nproc_per_node 2 pretrain_gpt.py --distributed-backend nccl --tensor-model-parallel-size 2\n' >"$m/train.sh"
cp "$m/train.sh" "$work/train.sh.orig"
"$FERRY" init "$m" >/dev/null
"$FERRY" -C "$m" check --phase assess --phase adapt >/dev/null 2>&1
"$FERRY" -C "$m" findings --format json >"$work/f.json"
python3 - "$work/f.json" <<'PY' && ok "Megatron: backend and CUDA_DEVICE_MAX_CONNECTIONS are kept, not rewritten" || fail "Megatron findings"
import json, sys
fs = json.load(open(sys.argv[1]))["findings"]
def at(plugin, file, line):
    return [f for f in fs if f["plugin"] == plugin and f["file"] == file and f["line"] == line]
for p in ("assess.distributed_backend", "adapt.distributed_backend"):
    k = at(p, "train.sh", 4)
    assert k and not k[0]["fixable"] and not k[0]["automatic"] and k[0]["severity"] == "info", k
    assert "mindspeed.megatron_adaptor" in k[0]["suggestion"], k
for p in ("assess.env_vars", "adapt.env_vars"):
    k = at(p, "train.sh", 2)
    assert k and not k[0]["fixable"] and k[0]["severity"] == "info" and "stays as it is" in k[0]["message"], k
v = at("adapt.env_vars", "train.sh", 3)
assert v and v[0]["fixable"], v
ms = [f for f in fs if f["plugin"] == "adapt.mindspeed"]
assert len(ms) == 1 and ms[0]["file"] == "pretrain_gpt.py" and ms[0]["fixable"], ms
lib = [f for f in fs if f["plugin"] == "assess.gpu_libraries" and f["file"] == "pretrain_gpt.py"]
assert lib and "built for NVIDIA GPUs" not in lib[0]["message"] and "MindSpeed" in lib[0]["suggestion"], lib
PY
"$FERRY" -C "$m" fix --all --phase adapt --yes >/dev/null 2>&1
expect_grep "^export CUDA_DEVICE_MAX_CONNECTIONS=1$" "$m/train.sh" "Megatron: CUDA_DEVICE_MAX_CONNECTIONS=1 survives ferry fix"
expect_grep "pretrain_gpt.py --distributed-backend nccl " "$m/train.sh" "Megatron: --distributed-backend nccl survives ferry fix"
expect_grep "^export ASCEND_RT_VISIBLE_DEVICES=0,1$" "$m/train.sh" "Megatron: CUDA_VISIBLE_DEVICES is still renamed"
expect_grep 'backend="nccl"' "$m/megatron/training/__init__.py" "Megatron: the vendored package keeps its backend"
python3 - "$m/pretrain_gpt.py" <<'PY' && ok "Megatron: the adaptor import goes right under import torch" || fail "adaptor import"
import sys
lines = open(sys.argv[1]).read().splitlines()
assert lines[:2] == ["import torch", "import mindspeed.megatron_adaptor"], lines
PY
# a project without Megatron still gets its backend rewritten
n="$work/plain"
make_project "$n"
printf '#!/bin/sh\ntorchrun train.py --dist-backend nccl\n' >"$n/run.sh"
"$FERRY" init "$n" >/dev/null
"$FERRY" -C "$n" check --plugin adapt.distributed_backend >/dev/null 2>&1
findings_of "$n" adapt.distributed_backend
python3 - "$work/f.json" <<'PY' && ok "outside Megatron the NCCL backend is still rewritten" || fail "plain backend"
import json, sys
fs = json.load(open(sys.argv[1]))["findings"]
assert fs and all(f["fixable"] for f in fs), fs
PY

# ---------------------------------------------------------------- version matrix
v="$work/versions"
make_project "$v"
"$FERRY" init "$v" >/dev/null
probe() { # probe TORCH NPU CANN FILE
	python3 - "$1" "$2" "$3" "$4" <<'PY'
import json, sys
torch, npu, cann, out = sys.argv[1:5]
d = json.load(open("tests/plugins/environment/healthy_910b/probe.json"))
d["python"]["packages"]["torch"] = torch
d["python"]["packages"]["torch_npu"] = npu
d["cann"]["toolkit"]["version"] = cann
json.dump(d, open(out, "w"))
PY
}
(cd "$top" && probe 2.7.1+cpu 2.7.1.post4 9.1.0 "$work/p1.json" && probe 2.12.0+cpu 2.12.0.post2 9.1.0 "$work/p2.json" &&
	probe 2.7.1+cpu 2.7.1.post4 8.3.RC1 "$work/p3.json")
verdict() { # verdict PROBE -> severity and message of environment.versions' combination finding
	"$FERRY" -C "$v" ingest env-probe "$1" >/dev/null 2>&1
	"$FERRY" -C "$v" check --plugin environment.versions >/dev/null 2>&1
	"$FERRY" -C "$v" findings --plugin environment.versions --status open --format json | python3 -c '
import json, sys
fs = [f for f in json.load(sys.stdin)["findings"] if "combination" in f["message"]]
print(fs[0]["severity"] if fs else "none", fs[0]["message"] if fs else "")'
}
verdict "$work/p1.json" >"$work/v1"
expect_grep "^info .*supported combination.*compatible" "$work/v1" "torch_npu 2.7.1.post4 on CANN 9.1.0 is compatible (release notes)"
verdict "$work/p2.json" >"$work/v2"
expect_grep "^info .*supported combination (branch v2.12.0-26.1.1" "$work/v2" "torch_npu 2.12.0.post2 (TorchNPU 26.1.1) is in the matrix"
verdict "$work/p3.json" >"$work/v3"
expect_grep "^error .*not a combination" "$work/v3" "torch_npu 2.7.1.post4 on CANN 8.3.RC1 is still an error"

# ---------------------------------------------------------------- libraries
l="$work/libs"
make_project "$l"
printf 'deepspeed==0.14.0\nmmcv==2.1.0\ncupy-cuda12x\n' >"$l/requirements.txt"
printf 'import deepspeed\nimport torch\n' >"$l/ds.py"
"$FERRY" init "$l" >/dev/null
"$FERRY" -C "$l" check --plugin assess.gpu_libraries >/dev/null 2>&1
findings_of "$l" assess.gpu_libraries
python3 - "$work/f.json" <<'PY' && ok "DeepSpeed and MMCV are not called NVIDIA-only; CuPy still is" || fail "library statuses"
import json, sys
fs = json.load(open(sys.argv[1]))["findings"]
def one(file, line):
    r = [f for f in fs if f["file"] == file and f["line"] == line]
    assert len(r) == 1, (file, line, fs)
    return r[0]
for f in (one("requirements.txt", 1), one("requirements.txt", 2), one("ds.py", 1)):
    assert "NVIDIA" not in f["message"] and f["severity"] == "info", f
assert "deepspeed.accelerator" in one("ds.py", 1)["suggestion"] or "accelerator" in one("ds.py", 1)["suggestion"], one("ds.py", 1)
assert "built for NVIDIA GPUs" in one("requirements.txt", 3)["message"], one("requirements.txt", 3)
PY

finish
