# Optional GPU libraries imported the way real training code guards them (the shapes of
# timm's and Megatron-LM's optional flash-attn / xformers / fused-kernel imports).
import torch

try:
    import flash_attn
except ModuleNotFoundError:
    flash_attn = None

try:
    import xformers.ops as xops
except (ImportError, AttributeError):
    xops = None

try:
    from cupy import asarray as cp_asarray
except Exception:
    cp_asarray = None

try:
    import pynvml
except:  # noqa: E722
    pynvml = None

try:
    import triton  # not a fallback for a failed import: reported as a plain import
except RuntimeError:
    triton = None

import bitsandbytes as bnb  # not guarded


class Block(torch.nn.Module):
    def forward(self, q, k, v):
        if flash_attn is not None:
            return flash_attn.flash_attn_func(q, k, v)
        if xops is not None:
            return xops.memory_efficient_attention(q, k, v)
        return torch.softmax(q @ k.transpose(-1, -2), -1) @ v


def host_copy(x):
    return cp_asarray(x) if cp_asarray else x


def optim(params):
    return bnb.optim.Adam8bit(params)
