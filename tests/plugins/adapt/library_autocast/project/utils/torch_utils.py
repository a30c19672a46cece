"""Helpers the project shares; AMP comes from the detection library."""

import torch
from ultralytics.utils.torch_utils import (  # noqa: F401
    autocast as amp_context,
)


def pick_device(name="0"):
    return torch.device("cpu" if name == "cpu" else "cuda:" + name)
