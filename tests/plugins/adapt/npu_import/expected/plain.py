# Remember: import torch_npu before using the NPU.
import torch
import torch_npu

NOTE = "import torch_npu"
y = torch.ones(2).npu()
