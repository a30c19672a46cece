"""Aliases of torch.cuda: `import torch.cuda as tc` in a docstring stays."""
import torch
import torch_npu
import torch.npu as tc
from torch import npu as cuda
from torch.npu import synchronize as sync_all
from torch_npu.npu.amp import autocast, GradScaler


def step(model, x):
    tc.empty_cache()
    cuda.manual_seed(0)
    sync_all()
    with autocast():
        y = model(x)
    with torch.autocast("npu", dtype=torch.float16):
        y = model(x)
    with torch.autocast(device_type='npu'):
        y = model(x)
    scaler = GradScaler()
    return y, scaler
