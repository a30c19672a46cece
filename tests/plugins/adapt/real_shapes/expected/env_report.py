# accelerate's env command: each accelerator's test stored first, then one chain.
import torch


def is_npu_available():
    return hasattr(torch, "npu") and torch.npu.is_available()


def accelerator():
    pt_cuda_available = torch.cuda.is_available()
    pt_npu_available = is_npu_available()
    if pt_cuda_available:
        return "CUDA", torch.cuda.get_device_name()
    elif pt_npu_available:
        return "NPU", torch.npu.get_device_name()
    return "N/A", None
