import torch

from backends import BACKEND_MANUAL_SEED, empty_cache

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
BACKEND_MANUAL_SEED[device.type](0)
model = torch.nn.Linear(4, 4).to(device)
empty_cache(device)
