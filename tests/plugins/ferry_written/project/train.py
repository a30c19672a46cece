import torch

model = torch.nn.Linear(4, 2).cuda()
for step in range(3):
    loss = model(torch.ones(1, 4).cuda()).sum()
    print(loss.item())
