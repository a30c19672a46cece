import torch

model = torch.nn.Linear(16, 4).eval()
torch.onnx.export(model, torch.randn(1, 16), "m.onnx", opset_version=13)
# loss.backward() is not called here: this project only exports
