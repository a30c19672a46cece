import torch
from torch_npu.contrib import transfer_to_npu

from segment import build_model

if __name__ == "__main__":
    model = build_model()
    print(model(torch.randn(1, 3, 16, 16)).shape)
