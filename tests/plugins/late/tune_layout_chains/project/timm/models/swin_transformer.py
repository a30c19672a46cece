# Excerpts of timm's models/swin_transformer.py and layers/bottleneck_attn.py: layout chains
# that run at every step (kept) and one that is a product's transposed operand (dropped:
# the product takes the transpose in, as matmul_transpose does on the NPU).
import torch
import torch.nn as nn


def window_partition(x, window_size):
    B, H, W, C = x.shape
    x = x.view(B, H // window_size[0], window_size[0], W // window_size[1], window_size[1], C)
    windows = x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size[0], window_size[1], C)
    return windows


class WindowAttention(nn.Module):
    def __init__(self, dim, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.qkv = nn.Linear(dim, dim * 3)

    def forward(self, x):
        B_, N, C = x.shape
        qkv = self.qkv(x).reshape(B_, N, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        x = torch.nn.functional.scaled_dot_product_attention(q, k, v)
        return x.transpose(1, 2).reshape(B_, N, -1)


class SwinTransformerBlock(nn.Module):
    def __init__(self, dim, num_heads, window_size=(7, 7)):
        super().__init__()
        self.window_size = window_size
        self.attn = WindowAttention(dim, num_heads)

    def forward(self, x):
        windows = window_partition(x, self.window_size)
        return self.attn(windows.view(-1, self.window_size[0] * self.window_size[1], windows.shape[-1]))


class BottleneckAttn(nn.Module):
    def forward(self, q, k):
        B = q.shape[0]
        return q @ k.reshape(B * 4, 16, -1).transpose(-1, -2)
