# Kernels loaded by tools/executor.py through sys.path; the module needs Triton even
# though its import is guarded, since its top level uses it
import importlib.util

import torch

HAVE_TRITON = importlib.util.find_spec("triton") is not None
if HAVE_TRITON:
    import triton
    import triton.language as tl


@triton.jit
def _scale(x_ptr, n, factor: tl.constexpr):
    i = tl.program_id(0)
    tl.store(x_ptr + i, tl.load(x_ptr + i, mask=i < n) * factor, mask=i < n)


def scale(x, factor):
    _scale[(x.numel(),)](x, x.numel(), factor)
    return x


def scaled_copy(x, factor):
    # unsloth's launchers: the buffer is made for the Triton kernel it is handed to, so its
    # device is CUDA's as long as the kernel is
    out = torch.empty(x.numel(), dtype=x.dtype, device="cuda")
    _scale[(x.numel(),)](out.copy_(x), x.numel(), factor)
    return out
