import torch

model = torch.nn.Linear(4, 2)
with open("model.pt", "wb") as f:
    torch.save(model, f)
# the program reads back what it wrote itself, on the host it runs on
with open("model.pt", "rb") as f:
    model = torch.load(f)
