import torch


def attend(q, k, v):
    probs = torch.softmax(q @ k.transpose(-2, -1), dim=-1)
    return torch.bmm(probs, v)
