"""Fixture: host syncs in loops, dynamic shapes, unsupported operators.

Calling loss.item() in the loop is slow (prose). torch.nonzero(x) too.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import GRU


def train(model, loader, opt):
    total = 0.0
    history = {}
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        total += loss.item()
        preds = model(x).argmax(1).cpu()
        hist = preds.tolist()
        arr = loss.detach().numpy()
        for k, v in history.items():
            print(k, v)
        torch.cuda.synchronize()
    final = loss.item()
    n = 0
    while n < 3:
        n += 1
        log_value = model(x).sum().item()
    return total, final, hist, arr, log_value


def select(x, mask, scores):
    idx = torch.nonzero(mask)
    keep = x.nonzero()
    vals = torch.masked_select(x, mask)
    picked = x[scores > 0.5]
    x[x < 0] = 0
    where_idx = torch.where(mask)
    blend = torch.where(mask, x, 0)
    u = torch.unique(x)
    return idx, keep, vals, picked, where_idx, blend, u


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(8, 8)
        self.rnn2 = GRU(8, 8)
        self.pool = nn.AdaptiveMaxPool2d(1)
        self.bag = F.embedding_bag

    def forward(self, x):
        x = x.double()
        y = x.to(torch.float64)
        z = torch.std_mean(x)
        s = x.to_sparse()
        m = x.mode()
        return self.pool(x), y, z, s, m


def unrelated(df, args):
    # pandas-like objects with generic names are not flagged
    mode = args.mode
    return df.unique(), mode
