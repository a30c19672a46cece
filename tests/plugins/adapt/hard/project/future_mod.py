"""Module doc mentioning torch.cuda and import torch_npu."""
from __future__ import annotations

from torch.cuda.amp import autocast
import torch


def f(x):
    with autocast():
        return x.cuda()
