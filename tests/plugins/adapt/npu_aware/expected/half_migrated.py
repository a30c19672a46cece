import torch
import torch_npu

device = torch.device("npu:0")
model = torch.nn.Linear(2, 2).npu()
if torch.npu.is_available():
    torch.npu.synchronize()
