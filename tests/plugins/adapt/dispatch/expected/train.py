import torch
import torch_npu

from backends import BACKEND_MANUAL_SEED, empty_cache

device = torch.device("npu" if torch.npu.is_available() else "cpu")
BACKEND_MANUAL_SEED[device.type](0)
model = torch.nn.Linear(4, 4).to(device)
empty_cache(device)
