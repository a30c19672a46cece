import torch

from mylib import Net

if __name__ == "__main__":
    model = Net().cuda()
    print(model(torch.randn(2, 4).cuda()))
