# Trains the segmentation model at module level, in the style of a research script: the
# hyper-parameters below, no main function.
import torch

from opts import args
from segment import build_model

# hyper-parameters
# ------------
lr = 0.01
end_step = 1000

net = build_model(args.checkpoint)
net.train()
optimizer = torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9)

for step in range(end_step):
    x = torch.randn(2, 3, 16, 16)
    loss = net(x).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
