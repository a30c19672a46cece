# A ViT patch embedding, a GPT-2 style attention and MLP, and a LLaMA-style RoPE applied
# in one helper: shapes the NPU has fused operators for.
import math

import torch
import torch.nn as nn


class PatchEmbed(nn.Module):
    def __init__(self, dim=768, patch=16):
        super().__init__()
        self.proj = nn.Conv2d(3, dim, kernel_size=patch, stride=patch)

    def forward(self, x):
        x = self.proj(x)
        return x.flatten(2).transpose(1, 2)  # [B, C, H, W] -> [B, HW, C]


class TanhGELU(nn.Module):
    """GELU with the tanh approximation, written out."""

    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class SelfAttention(nn.Module):
    def __init__(self, dim=768, heads=12):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        y = torch.softmax(torch.einsum("bhqd,bhkd->bhqk", q, k), dim=-1)
        y = torch.einsum("bhqk,bhkd->bhqd", y, v)
        return y.transpose(1, 2).contiguous().view(b, t, c)


def apply_rope(x, cos, sin):
    mid = x.size(-1) // 2
    x1, x2 = x[..., :mid], x[..., mid:]
    rotated = torch.cat((-x2, x1), dim=-1)
    return x * cos + rotated * sin


def not_a_layout_change(x, w):
    # a transpose alone, a view of a view, and a permute of a permute: nothing to fuse
    y = x.transpose(0, 1)
    z = w.view(-1).view(2, -1)
    return y, z, x.permute(1, 0).permute(1, 0)
