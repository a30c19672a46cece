"""Export a detector to the formats its deployments use, one function per format.

    python export.py --weights det.pt --include onnx engine
"""
import argparse
from pathlib import Path

import torch


def export_onnx(model, im, file, opset, dynamic, prefix="ONNX:"):
    """The ONNX model, written by the ultralytics helper (current releases of the detector)."""
    from ultralytics.utils.export import torch2onnx

    f = str(file.with_suffix(".onnx"))
    if dynamic:
        dynamic = {"images": {0: "batch", 2: "height", 3: "width"}}  # shape(1,3,640,640)
    torch2onnx(
        model.cpu() if dynamic else model,
        im.cpu() if dynamic else im,
        f,
        opset=opset,
        input_names=["images"],
        output_names=["output0"],
        dynamic=dynamic or None,
    )
    print(f"{prefix} saved {f}")
    return f


def export_engine(model, im, file, dynamic):
    """The engine is built from an ONNX model of opset 12."""
    export_onnx(model, im, file, 12, dynamic)
    return file.with_suffix(".engine")


def run(weights="det.pt", include=("onnx",), opset=12, dynamic=False):
    model = torch.load(weights, map_location="cpu").float().eval()
    im = torch.zeros(1, 3, 640, 640)
    file = Path(weights)
    if "engine" in include:
        export_engine(model, im, file, dynamic)
    if "onnx" in include:
        export_onnx(model, im, file, opset, dynamic)


def parse_opt():
    parser = argparse.ArgumentParser()
    parser.add_argument("--weights", type=str, default="det.pt", help="model path")
    parser.add_argument("--include", nargs="+", default=["onnx"], help="onnx, engine")
    parser.add_argument("--opset", type=int, default=17, help="ONNX: opset version")
    parser.add_argument("--dynamic", action="store_true", help="ONNX: dynamic axes")
    return parser.parse_args()


if __name__ == "__main__":
    opt = parse_opt()
    run(**vars(opt))
