# Shapes that look like the fused patterns and are not: none is reported.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class LayerNorm(nn.Module):
    """BERT's LayerNorm: subtracts the mean, so it is no RMSNorm."""

    def forward(self, x):
        u = x.mean(-1, keepdim=True)
        s = (x - u).pow(2).mean(-1, keepdim=True)
        return (x - u) * torch.rsqrt(s + 1e-12)


class Adafactor(torch.optim.Optimizer):
    """An optimizer's moments: a reciprocal root and squares, but no RMSNorm."""

    def step(self):
        for p in self.params:
            update = p.grad ** 2 + 1e-30
            row = update.mean(dim=-1)
            col = update.mean(dim=-2)
            p.data.add_(p.grad * row.rsqrt() * col.rsqrt())


def get_position_embeds(seq_len, dtype, device):
    """Funnel's sinusoidal table: a negated part in a cat, but no rotation of one tensor."""
    freq = torch.arange(0, 32, 1.0, dtype=dtype, device=device)
    sin_embed, cos_embed = torch.sin(freq), torch.cos(freq)
    return torch.cat([-sin_embed, cos_embed], dim=-1)


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        # torch's own module, not fairseq's: no NPU version in the affinity list
        self.mha = nn.MultiheadAttention(64, 4)

    def forward(self, q, k, v):
        s = torch.matmul(q.transpose(-2, -1), k) / math.sqrt(q.size(-1))
        act = self.act(s) * v  # an activation the code does not name
        return F.softmax(s, dim=-1) @ v + act
