"""Bias + activation, fused in a custom CUDA kernel when it can be built.

The kernel lives in csrc/fused_bias_act.cu. It is compiled on first use with
torch.utils.cpp_extension.load; without a cuda toolkit the plain PyTorch
version below is used instead.
"""
import os

import torch
import torch.nn.functional as F
from torch.utils.cpp_extension import load

_ext = None


def _load_extension():
    global _ext
    if _ext is None:
        here = os.path.dirname(os.path.abspath(__file__))
        src = os.path.join(here, "..", "csrc", "fused_bias_act.cu")
        _ext = load(name="fused_bias_act", sources=[src], verbose=False)
    return _ext


def fused_bias_act(x, bias=None, slope=0.2):
    """leaky_relu(x + bias); uses the CUDA kernel for contiguous cuda tensors."""
    if bias is None:
        bias = torch.zeros(x.shape[-1], device=x.device, dtype=x.dtype)
    if x.is_cuda and x.is_contiguous() and os.environ.get("FUSED_KERNEL", "1") == "1":
        return _load_extension().forward(x, bias, slope)
    return F.leaky_relu(x + bias, slope)
