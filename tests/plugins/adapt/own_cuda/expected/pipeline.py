# a diffusers community pipeline's shape: a class of the project's own (no nn.Module)
# with a cuda() method; .npu() would not be that method, so its calls are left to a
# person, while a tensor torch builds is still moved
import torch
import torch_npu


class Pipeline:
    def __init__(self):
        self.w = torch.zeros(2)

    def to(self, device, dtype=None):
        self.w = self.w.to(device=device, dtype=dtype)
        return self

    def cuda(self, dtype=torch.float16):
        return self.to("npu", dtype)


pipe = Pipeline().cuda()
x = torch.zeros(2).npu()
