import os
import random

import numpy as np
import torch
import torch_npu
from torch.utils.data import DataLoader
from torch_npu.optim import NpuFusedAdamW

from utils import seed_all

os.environ.setdefault("PYTORCH_NPU_ALLOC_CONF", "expandable_segments:True")


def main(ds, model):
    seed_all(1234)
    loader = DataLoader(ds, batch_size=8, num_workers=4, pin_memory=True, persistent_workers=True)
    opt = NpuFusedAdamW(model.parameters(), lr=1e-4)
    scaler = torch.npu.amp.GradScaler()
    for x, y in loader:
        with torch.npu.amp.autocast(dtype=torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        with torch.autocast("npu"):
            aux = model(x).float().softmax(-1)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        if random.random() < 0.1:
            x = x[np.random.permutation(len(x))]
    return aux
