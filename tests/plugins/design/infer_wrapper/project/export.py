"""Writes the trained detector as an ONNX model with the ultralytics helper."""
from ultralytics.utils.export import torch2onnx


def export_onnx(model, im, file, opset=13):
    f = str(file.with_suffix(".onnx"))
    torch2onnx(model.cpu(), im.cpu(), f, opset=opset, input_names=["images"], output_names=["output0"])
    return f
