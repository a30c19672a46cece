import torch

try:
    from torch_npu.contrib import transfer_to_npu  # noqa: F401
except ImportError:
    pass

model = torch.nn.Linear(2, 2).cuda()
