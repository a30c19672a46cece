"""Aliases of torch.cuda: `import torch.cuda as tc` in a docstring stays."""
import torch
import torch.cuda as tc
from torch import cuda
from torch.cuda import synchronize as sync_all
from torch.cuda.amp import autocast, GradScaler


def step(model, x):
    tc.empty_cache()
    cuda.manual_seed(0)
    sync_all()
    with autocast():
        y = model(x)
    with torch.autocast("cuda", dtype=torch.float16):
        y = model(x)
    with torch.autocast(device_type='cuda'):
        y = model(x)
    scaler = GradScaler()
    return y, scaler
