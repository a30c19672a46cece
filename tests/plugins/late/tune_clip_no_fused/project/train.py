# Clips gradients, but trains with an optimizer torch_npu has no fused version of (Lion):
# clip_grad_norm_fused_ needs an NpuFused optimizer, so the clipping is not reported.
import torch
from lion_pytorch import Lion


def train(model, loader):
    opt = Lion(model.parameters(), lr=1e-4)
    for x, y in loader:
        loss = model(x, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
