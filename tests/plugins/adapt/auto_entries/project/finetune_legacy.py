# Fine-tunes a block on random data, torch 0.4 style: everything at module level.
import torch

from layers import Block

net = Block()
optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
for it in range(100):
    loss = net(torch.randn(8, 4)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
