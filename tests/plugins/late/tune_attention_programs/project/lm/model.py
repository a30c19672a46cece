import math

import torch
import torch.nn.functional as F


class CausalSelfAttention(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.c_attn = torch.nn.Linear(dim, 3 * dim)
        self.dim = dim

    def forward(self, x):
        q, k, v = self.c_attn(x).split(self.dim, dim=2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = F.softmax(att, dim=-1)
        y = att @ v
        return y
