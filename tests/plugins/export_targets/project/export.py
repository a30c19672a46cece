"""Export a trained detector to the formats its deployments use.

    python export.py --weights det.pt --include torchscript onnx engine --device cpu
"""
import argparse
import platform
from pathlib import Path

import torch
from torch.utils.mobile_optimizer import optimize_for_mobile

from utils.general import check_requirements


def export_torchscript(model, im, file, optimize):
    f = file.with_suffix(".torchscript")
    ts = torch.jit.trace(model, im, strict=False)
    if optimize:  # the lite interpreter of PyTorch Mobile
        optimize_for_mobile(ts)._save_for_lite_interpreter(str(f))
    else:
        ts.save(str(f))
    return f


def export_onnx(model, im, file, opset):
    f = file.with_suffix(".onnx")
    torch.onnx.export(model, im, f, opset_version=opset, input_names=["images"], output_names=["output0"])
    return f


def export_engine(model, im, file, workspace=4):
    assert im.device.type != "cpu", "the engine is built on a GPU: --device 0"
    try:
        import tensorrt as trt
    except Exception:
        if platform.system() == "Linux":
            check_requirements("tensorrt")
        import tensorrt as trt

    onnx = export_onnx(model, im, file, 12)
    logger = trt.Logger(trt.Logger.INFO)
    builder = trt.Builder(logger)
    config = builder.create_builder_config()
    config.max_workspace_size = workspace * 1 << 30
    network = builder.create_network(1 << int(trt.NetworkDefinitionCreationFlag.EXPLICIT_BATCH))
    parser = trt.OnnxParser(network, logger)
    parser.parse_from_file(str(onnx))
    f = file.with_suffix(".engine")
    with builder.build_engine(network, config) as engine, open(f, "wb") as t:
        t.write(engine.serialize())
    return f


def run(weights="det.pt", include=("torchscript",), device="cpu", optimize=False, opset=12):
    device = torch.device(device)
    if optimize:
        assert device.type == "cpu", "--optimize is for the CPU only: use --device cpu"
    model = torch.load(weights, map_location=device).float().eval()
    im = torch.zeros(1, 3, 640, 640).to(device)
    file = Path(weights)
    if "torchscript" in include:
        export_torchscript(model, im, file, optimize)
    if "onnx" in include:
        export_onnx(model, im, file, opset)
    if "engine" in include:
        export_engine(model, im, file)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--weights", default="det.pt")
    parser.add_argument("--include", nargs="+", default=["torchscript"])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--optimize", action="store_true")
    parser.add_argument("--opset", type=int, default=12)
    run(**vars(parser.parse_args()))
