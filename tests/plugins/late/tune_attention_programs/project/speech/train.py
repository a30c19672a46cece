import torch

from model import attend

w = torch.nn.Parameter(torch.randn(2, 4, 4))
opt = torch.optim.SGD([w], lr=0.1)
for step in range(3):
    loss = attend(w, w, w).sum()
    loss.backward()
    opt.step()
