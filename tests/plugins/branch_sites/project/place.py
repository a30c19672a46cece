"""Fixture: CUDA calls inside branches left to a person, not in their tests."""
import torch


def place(model):
    if torch.cuda.is_available() and not torch._C._cuda_isInBadFork():
        model.cuda()
        torch._C._cuda_init()
    return model


def attend(q, k, v):
    if q.is_cuda:
        from flash_attn import flash_attn_func
        k = k.cuda()
        return flash_attn_func(q, k, v)
    return torch.softmax(q @ k.transpose(-1, -2), -1) @ v
