import os

import torch
import torch_npu  # noqa: F401

os.environ["MULTI_STREAM_MEMORY_REUSE"] = "0"
model = torch.nn.Linear(16, 4).npu()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(10):
    loss = model(torch.randn(8, 16).npu()).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
