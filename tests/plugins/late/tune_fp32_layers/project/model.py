import torch
import torch.nn as nn


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class SafeRMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        h = x.float()
        return (h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)).type_as(x) * self.weight


class TinyLM(nn.Module):
    def __init__(self, vocab=100, dim=16):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim, dtype=torch.float16)
        self.pos = nn.Embedding(32, dim)
        self.norm = RMSNorm(dim)
        self.ln = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        self.proj = nn.Linear(dim, dim, dtype=torch.float16)  # not an output layer
        self.pos.half()
        self.lm_head.to(torch.bfloat16)
        self.ln.to(dtype=torch.float32)

    def forward(self, idx):
        return self.lm_head(self.norm(self.tok(idx) + self.pos.weight[: idx.shape[1]]))
