import torch
import torch_npu


def place(x):
    if torch.npu.is_available():
        return x.npu()
    return x
