#!/bin/sh
# Export targets and backends other than the NPU block nothing: a TensorRT engine export
# and a TensorRT backend (yolov5's export.py and DetectMultiBackend), and a mobile export
# (optimize_for_mobile) that the code runs on the CPU only, do not drive the strategy to
# manual porting nor weigh as third-party library or operator work; TensorRT code in a
# project with no ONNX export is inference work to plan, not a blocker either.
. "$(dirname "$0")/lib.sh"

# the export_targets fixture without its GPU libraries other than TensorRT (flash-attn
# installed at run time, a real blocker; CuPy with a fallback)
p="$work/targets"
cp -R "$top/tests/plugins/export_targets/project" "$p"
rm "$p/kernels.py" "$p/arrays.py"
"$FERRY" init "$p" >/dev/null 2>&1
"$FERRY" -C "$p" check --phase assess >/dev/null 2>&1
"$FERRY" -C "$p" status --format json >"$work/status.json"
"$FERRY" -C "$p" findings --phase assess --format json >"$work/findings.json"
python3 - "$work/status.json" "$work/findings.json" <<'PY' && ok "TensorRT and a CPU-only mobile export drive no manual strategy" || fail "TensorRT or the mobile export still weigh as blockers"
import json, sys
a = json.load(open(sys.argv[1]))["assessment"]
fs = {f["id"]: f for f in json.load(open(sys.argv[2]))["findings"]}
st = a["strategy"]
assert st["recommended"] != "manual", st
for i in st["drivers"]:
    assert fs[i]["plugin"] not in ("assess.gpu_libraries", "assess.unsupported_ops"), fs[i]
assert a["open_errors"] == 0, a["open_errors"]
# no third-party library or operator work in the estimate: TensorRT asks for no change, the
# mobile export outside a CPU branch is a small export task of the inference line
assert "libraries" not in a["weights"] and "operators" not in a["weights"], a["weights"]
lines = {s["name"]: s["days"] for s in a["quote"]["services"]}
assert lines["libraries"] == 0, lines
PY

# TensorRT as the only way the project serves its model: inference work (a warning of the
# inference line), never an error
q="$work/trt_only"
mkdir -p "$q"
cat >"$q/serve.py" <<'PY'
"""Serves the detector from a TensorRT engine built on the GPU host."""
import numpy as np
import tensorrt as trt


def load(path):
    logger = trt.Logger(trt.Logger.WARNING)
    with open(path, "rb") as f, trt.Runtime(logger) as runtime:
        return runtime.deserialize_cuda_engine(f.read())


if __name__ == "__main__":
    engine = load("det.engine")
    print(engine.num_io_tensors, np.zeros(3))
PY
printf 'numpy\ntensorrt>=8.6\n' >"$q/requirements.txt"
"$FERRY" init "$q" >/dev/null 2>&1
"$FERRY" -C "$q" check --phase assess --format json >"$work/trt.json" 2>/dev/null
"$FERRY" -C "$q" status --format json >"$work/trt_status.json"
python3 - "$work/trt.json" "$work/trt_status.json" <<'PY' && ok "TensorRT serving without an ONNX export: inference work to plan, not a blocker" || fail "TensorRT serving without an ONNX export"
import json, sys
fs = [f for f in json.load(open(sys.argv[1]))["findings"] if f["plugin"] == "assess.gpu_libraries"]
assert len(fs) == 2, fs
for f in fs:
    assert f["severity"] == "warning" and f["category"] == "serving", f
    assert "deployment target for NVIDIA GPUs" in f["message"], f["message"]
    assert "export it to ONNX" in f["suggestion"] and "design.migration_plan.inference yes" in f["suggestion"], f["suggestion"]
a = json.load(open(sys.argv[2]))["assessment"]
assert a["strategy"]["recommended"] != "manual", a["strategy"]
assert [s["days"] for s in a["quote"]["services"] if s["name"] == "inference"][0] > 0, a["quote"]
PY

finish
