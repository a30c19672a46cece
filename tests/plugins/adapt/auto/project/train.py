"""Entry script: automatic migration keeps x.cuda() as written."""
import torch
import amp_C
from torch import nn


@torch.jit.script
def gelu(x):
    return x * 0.5


def main():
    model = nn.Linear(2, 2).cuda()
    model = model.to(memory_format=torch.channels_last)
    device = torch.device("cuda")
    if device.type == "cuda":
        torch.cuda.synchronize()
    return model


if __name__ == "__main__":
    main()
