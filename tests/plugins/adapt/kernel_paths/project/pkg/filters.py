import torch
import torch.nn.functional as F
from flash_attn import flash_attn_func


def box_filter(x: torch.Tensor, width: int) -> torch.Tensor:
    # a CUDA-only fast path: the Triton kernel, with the portable code after it
    if x.is_cuda:
        try:
            from .triton_ops import box_sum_triton

            return box_sum_triton(x, width)
        except RuntimeError:
            pass
    return x.unfold(0, width, 1).mean(-1)


def cumulative_kernel(x):
    from .triton_ops import cumulative_triton

    return cumulative_triton(x)


def cumulative(x: torch.Tensor) -> torch.Tensor:
    # the kernel is reached through a helper of this file
    if x.is_cuda:
        return cumulative_kernel(x)
    return x.cumsum(0)


def attend(q, k, v):
    # a name imported from a CUDA kernel library
    if q.device.type == "cuda":
        return flash_attn_func(q, k, v)
    return F.scaled_dot_product_attention(q, k, v)


def place(x):
    # an ordinary choice of device: migrated
    if torch.cuda.is_available():
        return x.cuda()
    return x


def can_use_flash(q):
    # whether the kernel library imported above applies: a question for CUDA only
    return q.is_cuda and q.dtype == torch.float16
