import torch
from model import TinyLM

model = TinyLM().half()
net = TinyLM()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
opt2 = torch.optim.SGD(net.parameters(), lr=0.1)
x = torch.zeros(2, 8, dtype=torch.long)
y = x.float()  # an input, not a layer cast back
loss = model(x).float().mean()
loss.backward()
opt.step()
