import torch
import torch_npu
from torch.npu import amp, synchronize


def step(model, x):
    with amp.autocast():
        y = model(x)
    synchronize()
    return y
