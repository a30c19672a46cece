import torch


def save(t, path):
    torch.save(t.cpu(), path)
    torch.cuda.synchronize()
