import torch

# torch.accelerator is new in PyTorch 2.6, hence the requirement's lower bound
device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else torch.device("cpu")
model = torch.nn.Linear(4, 2).to(device)
print(model(torch.ones(1, 4, device=device)))
