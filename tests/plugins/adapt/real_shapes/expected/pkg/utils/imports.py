# accelerate's availability probes: a function named for CUDA answers for CUDA, and its
# callers take their CUDA path on a yes.
import torch


def is_cuda_available():
    return torch.cuda.is_available()


def default_device():
    return "npu" if (hasattr(torch, "npu") and torch.npu.is_available()) else "cpu"
