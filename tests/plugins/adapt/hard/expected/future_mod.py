"""Module doc mentioning torch.cuda and import torch_npu."""
from __future__ import annotations

import torch_npu
from torch_npu.npu.amp import autocast
import torch


def f(x):
    with autocast():
        return x.npu()
