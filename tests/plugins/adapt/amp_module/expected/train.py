"""Mixed precision through the CUDA module imported by name, as detection code of 2020 does."""
import torch
import torch_npu
from torch_npu.npu import amp


def train(model, loader, optimizer, cuda=True):
    model = model.npu()
    scaler = amp.GradScaler(enabled=cuda)
    for x, y in loader:
        with amp.autocast(enabled=cuda):
            loss = torch.nn.functional.cross_entropy(model(x.npu()), y.npu())
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
