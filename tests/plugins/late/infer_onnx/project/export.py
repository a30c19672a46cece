import torch
import torch.onnx

from model import ResNet


def export_main():
    model = ResNet()
    model.eval()
    dummy = torch.randn(1, 3, 224, 224)
    torch.onnx.export(model, dummy, "resnet.onnx", opset_version=17,
                      input_names=["images"], output_names=["logits"],
                      dynamic_axes={"images": {0: "batch"}, "logits": {0: "batch"}},
                      do_constant_folding=False)


def export_head(head):
    x = torch.zeros((2, 16))
    torch.onnx.export(head, (x,), "head.onnx", input_names=["feat"])


def export_ok(model):
    model.eval()
    torch.onnx.export(model, torch.ones(1, 8), "ok.onnx", opset_version=13, input_names=["x"])
    # torch.onnx.export(model, x, "comment.onnx") in a comment is not code
    return "torch.onnx.export(model, x) in a string"


def export_as_is(head):
    # PRESERVE exports the mode the module is in: without eval() a training-mode module
    # keeps dropout and batch-norm training behaviour
    torch.onnx.export(head, (torch.zeros((2, 16)),), "as_is.onnx", opset_version=13,
                      training=torch.onnx.TrainingMode.PRESERVE)
