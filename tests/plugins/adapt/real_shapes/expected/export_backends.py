# yolov5's export and backends: a CUDA test that picks the package to install, directly in
# an f-string or through a name read later, not the device torch runs on.
import torch
import torch_npu


def check_requirements(req):
    return req


def onnx_backend(device):
    cuda = torch.cuda.is_available() and device.type != "cpu"  # use CUDA
    check_requirements(("onnx", "onnxruntime-gpu" if cuda else "onnxruntime"))
    return cuda


def tf_export():
    check_requirements(f"tensorflow{'' if torch.cuda.is_available() else '-cpu'}<=2.15.1")


def pick_device():
    return torch.device("npu:0" if torch.npu.is_available() else "cpu")

