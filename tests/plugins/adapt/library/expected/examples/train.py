import torch
import torch_npu

from mylib import Net

if __name__ == "__main__":
    model = Net().npu()
    print(model(torch.randn(2, 4).npu()))
