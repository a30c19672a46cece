# The model is cast to float16 and straight back, as YOLOv5's train.py does to round its
# anchors: it trains in float32, and nothing in it runs in float16.
import torch
from model import TinyLM

model = TinyLM()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model.half().float()  # pre-reduce anchor precision
model.to(torch.float16).to(torch.float32)
for x, y in [(torch.zeros(2, 4, dtype=torch.long), torch.zeros(2))]:
    opt.zero_grad()
    loss = model(x).sum()
    loss.backward()
    opt.step()
