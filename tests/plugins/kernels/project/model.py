"""Fixture: AMP, kernels, scripting, layout, compile, attention.

The text torch.cuda.amp.autocast and torch.jit.script here is documentation only.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.backends.cudnn as cudnn
from torch.cuda.amp import autocast, GradScaler
from torch.utils.cpp_extension import load_inline

import amp_C
from apex import amp
from apex.optimizers import FusedAdam

cudnn.benchmark = True
torch.backends.cudnn.deterministic = True
torch.backends.cuda.matmul.allow_tf32 = True


@torch.jit.script
def gelu_fast(x):
    return x * torch.sigmoid(1.702 * x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def build(model, params):
    model = model.to(memory_format=torch.channels_last)
    scripted = torch.jit.script(model)
    opt = FusedAdam(params, lr=1e-3)
    model, opt = amp.initialize(model, opt, opt_level="O1")
    compiled = torch.compile(model, mode="max-autotune")
    torch._dynamo.reset()
    return scripted, opt, compiled


def step(model, x, y, opt):
    scaler = torch.cuda.amp.GradScaler()
    with torch.cuda.amp.autocast(dtype=torch.float16):
        loss = F.mse_loss(model(x), y)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = loss + 0
    with torch.autocast(device_type="cuda"):
        pass
    with torch.autocast("cpu"):
        pass
    scaler2 = torch.amp.GradScaler("cuda")
    with autocast():
        pass
    s = GradScaler()
    with torch.backends.cuda.sdp_kernel(enable_flash=True):
        pass
    return scaler, s, scaler2


ext = load_inline(name="noop", cpp_sources="", cuda_sources="__global__ void k() {}")
