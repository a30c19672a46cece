import torch

try:
    import torch_npu
except ImportError:
    torch_npu = None

x = torch.zeros(2).cuda()
