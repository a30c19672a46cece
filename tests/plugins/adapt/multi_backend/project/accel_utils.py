"""Helpers of a library that runs on several accelerators, CUDA being one of them."""
import torch


def is_xpu_available():
    return hasattr(torch, "xpu") and torch.xpu.is_available()


def bf16_supported():
    # one branch per accelerator: rewriting the CUDA one would drop CUDA from the choice
    if torch.cuda.is_available():
        return torch.cuda.is_bf16_supported()
    if is_xpu_available():
        return torch.xpu.is_bf16_supported()
    return True


def device_for(kind, index):
    if kind == "hpu":
        return torch.device("hpu", index)
    if kind == "gpu":
        kind = "cuda"
    return torch.device(kind, index)


def pick_device():
    # a script's choice between CUDA and a Mac: the NPU takes CUDA's place
    return torch.device("cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu")


def free_memory():
    torch.cuda.empty_cache()


def set_device(kind, index):
    # the names in the list are what is supported; the comparisons below are the choice
    if kind not in ("cpu", "gpu", "npu", "xpu", "hpu"):
        raise ValueError(f"unknown device kind {kind}")
    if kind == "hpu":
        return torch.device("hpu", index)
    if kind == "gpu":
        kind = "cuda"
    return torch.device(kind, index)


def is_rocm_available():
    # asks whether torch is AMD's ROCm build: false on the NPU host whatever it tests
    return torch.version.hip is not None and torch.cuda.is_available()
