import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads).unbind(2)
        attn = (q.transpose(1, 2) @ k.transpose(1, 2).transpose(-2, -1)).softmax(dim=-1)
        x = attn @ v.transpose(1, 2)
        return self.proj(x.transpose(1, 2).reshape(b, n, c))
