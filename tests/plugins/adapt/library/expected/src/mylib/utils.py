import torch


def move(t, device="npu"):
    return t.to(device)
