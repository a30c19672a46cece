import torch

model = torch.nn.Linear(16, 4).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(10):
    x = torch.randn(8, 16).cuda()
    loss = model(x).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
