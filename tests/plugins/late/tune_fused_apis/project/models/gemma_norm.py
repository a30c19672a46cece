# litgpt's RMSNorm with Gemma's unit offset: the scale is 1 + weight there, so the fused
# operator's gamma is that sum, not the weight alone.
import torch


class RMSNorm(torch.nn.Module):
    def __init__(self, size, eps=1e-6, add_unit_offset=False):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(size))
        self.eps = eps
        self.add_unit_offset = add_unit_offset

    def forward(self, x):
        norm_x = torch.mean(x * x, dim=-1, keepdim=True)
        x_normed = x * torch.rsqrt(norm_x + self.eps)
        weight = (1 + self.weight) if self.add_unit_offset else self.weight
        return x_normed * weight
