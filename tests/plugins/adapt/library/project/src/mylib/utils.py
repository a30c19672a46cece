import torch


def move(t, device="cuda"):
    return t.to(device)
