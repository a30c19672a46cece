"""Exports a detector from methods of a class, with dynamic axes given by one caller."""
import torch

EXPORTERS = []


def register(cls):
    EXPORTERS.append(cls)
    return cls


class Exporter:
    def __init__(self, model):
        self.model = model

    def export(self, x, path, dynamic_axes=None):
        torch.onnx.export(self.model, x, path, opset_version=13, input_names=["images"],
                          dynamic_axes=dynamic_axes)

    def static(self):
        self.export(torch.randn(1, 3, 640, 640), "static.onnx")

    def dynamic(self):
        self.export(torch.randn(1, 3, 640, 640), "dynamic.onnx",
                    dynamic_axes={"images": {0: "batch"}})


@register
class StaticExporter:
    def export(self, model, path, dynamic_axes=None):
        x = torch.randn(1, 3, 320, 320)
        torch.onnx.export(model, x, path, opset_version=13, input_names=["images"],
                          dynamic_axes=dynamic_axes)

    def run(self, model):
        self.export(model, "small.onnx")
