import torch

from util.misc import grad_norm

model = torch.nn.Linear(4, 2)
loss = model(torch.randn(8, 4)).pow(2).mean()
loss.backward()
print(grad_norm(model.parameters(), float("inf")))
