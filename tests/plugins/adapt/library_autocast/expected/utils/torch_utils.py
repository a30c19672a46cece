"""Helpers the project shares; AMP comes from the detection library."""

import torch
import torch_npu
from ultralytics.utils.torch_utils import (  # noqa: F401
    autocast as amp_context,
)


def pick_device(name="0"):
    return torch.device("cpu" if name == "cpu" else "npu:" + name)
