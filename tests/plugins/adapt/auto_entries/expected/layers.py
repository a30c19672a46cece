# The model's building blocks; run it alone to check a block's output shape.
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, n_embd=4):
        super().__init__()
        self.fc = nn.Linear(n_embd, n_embd)

    def forward(self, x):
        return torch.relu(self.fc(x))


if __name__ == '__main__':
    print(Block()(torch.randn(1, 4)).shape)
