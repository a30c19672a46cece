from pathlib import Path

import torch

from export import export_onnx

model = torch.nn.Conv2d(3, 8, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(10):
    loss = model(torch.randn(2, 3, 32, 32)).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
export_onnx(model.eval(), torch.zeros(1, 3, 32, 32), Path("det"))
