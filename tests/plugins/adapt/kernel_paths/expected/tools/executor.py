import sys
from pathlib import Path

import torch
import torch_npu

sys.path.append(str(Path(__file__).parent))

import kernels


def scale_checker(x, factor) -> bool:
    # tells the executor whether the Triton kernel applies
    return x.device.type == "cuda" and factor > 0


def scale_many_checker(xs, factor) -> bool:
    return (
        factor > 0
        and all(x.is_contiguous() for x in xs)
        and xs[0].device.type == "cuda"
    )


def scale(x, factor):
    if scale_checker(x, factor):
        return kernels.scale(x, factor)
    return x * factor


def workspace(n):
    # an ordinary tensor on the device: migrated
    return torch.empty(n, device="npu")
