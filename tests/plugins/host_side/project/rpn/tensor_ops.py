import torch


def scores_of(x):
    return torch.sigmoid(x)
