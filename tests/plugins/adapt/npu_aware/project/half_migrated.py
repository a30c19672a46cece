import torch
import torch_npu

device = torch.device("npu:0")
model = torch.nn.Linear(2, 2).cuda()
if torch.cuda.is_available():
    torch.cuda.synchronize()
