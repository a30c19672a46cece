import torch


def export(model, x):
    torch.onnx.export(model, x, "model.onnx", opset_version=13)
