from contextlib import nullcontext

import torch
import torch_npu
from torch import autocast


def sample(model, precision):
    # the context manager is chosen first, then given the device type
    precision_scope = autocast if precision == "autocast" else nullcontext
    with torch.no_grad(), precision_scope("npu"):
        return model()
