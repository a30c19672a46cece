# Copyright (c) the mylib authors.
"""Readers and writers."""
from __future__ import annotations

try:
    import torch_npu
except ImportError:
    pass

from .save import save
