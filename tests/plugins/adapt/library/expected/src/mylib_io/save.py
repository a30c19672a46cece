import torch


def save(t, path):
    torch.save(t.cpu(), path)
    getattr(torch, "npu", torch.cuda).synchronize()
