# Model code in the shapes of real projects: HF LLaMA (RMSNorm, rotate_half), GPT-J
# (rotate_every_two), dinov2 (SwiGLU of two halves), diffusers (GEGLU), timm (DropPath),
# BERT/minGPT attention (a product with a transposed operand), YOLOv5 (Mish).
import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from timm.models.layers import DropPath
from fairseq.modules import MultiheadAttention as FMHA


class LlamaRMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def rotate_every_two(x):
    x1 = x[:, :, :, ::2]
    x2 = x[:, :, :, 1::2]
    x = torch.stack((-x2, x1), dim=-1)
    return x.flatten(-2)


def apply_rotary_pos_emb(q, k, cos, sin):
    return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


class MLP(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.w12 = nn.Linear(d, 8 * d)
        self.w3 = nn.Linear(4 * d, d)
        self.act = nn.GELU()
        self.drop = DropPath(0.1)

    def forward(self, x):
        a, b = self.w12(x).chunk(2, dim=-1)
        return self.w3(F.silu(a) * b)


class GEGLU(nn.Module):
    def forward(self, x):
        x, gate = x.chunk(2, dim=-1)
        return x * F.gelu(gate)


class Attn(nn.Module):
    def forward(self, q, k, v):
        s = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.size(-1))
        s2 = q @ k.transpose(-1, -2)
        s3 = torch.matmul(q.transpose(-2, -1), k)
        return F.gelu(s) + F.gelu(s2) + torch.roll(s3, 1) + nn.MultiheadAttention(4, 2)(q, k, v)[0]


class Mish(nn.Module):
    def forward(self, x):
        return x * torch.tanh(F.softplus(x))
