import torch
from torch.nn.utils import clip_grad_norm_


def train(model, loader):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for x, y in loader:
        loss = model(x, y)
        loss.backward()
        clip_grad_norm_(model.parameters(), 1.0)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        opt.step()
