import torch
import torch.nn.functional as F
import torch_npu


class RMSNorm(torch.nn.Module):
    def forward(self, x):
        if x.device.type == "npu":
            return torch_npu.npu_rms_norm(x, self.weight, epsilon=self.eps)[0]
        return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)


def gelu(x):
    if x.device.type == "npu":
        return torch_npu.fast_gelu(x)
    return F.gelu(x)


class TracedRMSNorm(torch.nn.Module):
    # the fused call follows a string holding '#' on its line: still code, not a comment
    def forward(self, x):
        if x.device.type == "npu":
            return self.trace("#norm", torch_npu.npu_rms_norm(x, self.weight, epsilon=self.eps)[0])
        return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
