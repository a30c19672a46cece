# The dynamic axes kept in a variable, as many export scripts do.
import torch

model = torch.nn.Conv2d(3, 8, 3).eval()
dummy = torch.randn(1, 3, 224, 224)
axes = {"image-in": {0: "batch"}, "out": {0: "batch"}}
torch.onnx.export(model, dummy, "axes.onnx", opset_version=13, input_names=["image-in"], output_names=["out"],
                  dynamic_axes=axes)
