"""Mixed precision through the CUDA module imported by name, as detection code of 2020 does."""
import torch
from torch.cuda import amp


def train(model, loader, optimizer, cuda=True):
    model = model.cuda()
    scaler = amp.GradScaler(enabled=cuda)
    for x, y in loader:
        with amp.autocast(enabled=cuda):
            loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
