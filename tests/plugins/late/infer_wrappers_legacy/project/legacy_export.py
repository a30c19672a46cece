"""The same export as older releases wrote it: torch's exporter inside a function of the project."""
from pathlib import Path

import torch


def export_onnx_legacy(model, im, file, opset, dynamic):
    f = file.with_suffix(".onnx")
    torch.onnx.export(
        model,
        im,
        f,
        verbose=False,
        opset_version=opset,
        do_constant_folding=True,
        input_names=["images"],
        output_names=["output0"],
        dynamic_axes={"images": {0: "batch"}} if dynamic else None,
    )
    return f


def export_classifier(model, file, axes=None):
    torch.onnx.export(model, torch.randn(1, 3, 224, 224), file, opset_version=13,
                      input_names=["images"], output_names=["logits"], dynamic_axes=axes)


def export_all(model):
    im = torch.zeros(1, 3, 320, 320)
    export_onnx_legacy(model, im, Path("legacy"), 16, False)
    export_onnx_legacy(model, im, Path("legacy_safe"), opset=13, dynamic=False)
    export_classifier(model, "cls.onnx", axes={"images": {0: "batch"}, "logits": {0: "batch"}})
