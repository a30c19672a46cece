from contextlib import nullcontext

import torch
from torch import autocast


def sample(model, precision):
    # the context manager is chosen first, then given the device type
    precision_scope = autocast if precision == "autocast" else nullcontext
    with torch.no_grad(), precision_scope("cuda"):
        return model()
