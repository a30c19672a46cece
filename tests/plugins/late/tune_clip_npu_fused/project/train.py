# Already trains with a torch_npu fused optimizer: its clip_grad_norm_fused_ replaces the
# tensor-by-tensor clipping below.
import torch
import torch_npu
from torch_npu.optim import NpuFusedLamb


def train(model, loader):
    torch.manual_seed(0)
    opt = NpuFusedLamb(model.parameters(), lr=1e-3)
    for x, y in loader:
        with torch.autocast("npu", dtype=torch.bfloat16):
            loss = model(x, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
