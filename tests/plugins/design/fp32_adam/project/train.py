import torch
model = torch.nn.Linear(4, 2).cuda()
opt = torch.optim.Adam(model.parameters())
for x in range(3):
    loss = model(torch.ones(4).cuda()).sum()
    loss.backward()
    opt.step()
