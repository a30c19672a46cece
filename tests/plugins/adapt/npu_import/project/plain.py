# Remember: import torch_npu before using the NPU.
import torch

NOTE = "import torch_npu"
y = torch.ones(2).cuda()
