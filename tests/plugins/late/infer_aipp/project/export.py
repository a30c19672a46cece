import torch
import torchvision

model = torchvision.models.resnet50()
model.load_state_dict(torch.load("resnet50.pth", map_location="cpu"))
model.eval()
torch.onnx.export(model, torch.randn(1, 3, 224, 224), "resnet50.onnx", opset_version=13,
                  input_names=["image"], output_names=["logits"])
