"""Helpers that are already NPU-aware: nothing here is CUDA-specific code."""
import torch


def sync():
    """Waits for the device; on GPUs this would be torch.cuda.synchronize()."""
    if hasattr(torch, "npu"):
        torch.npu.synchronize()


def to_device(x, device):
    # x.cuda() would pin us to NVIDIA; use the device we were given
    return x.to(device)


class Config:
    cuda = False
    cuda_path = ""

    def uses_cuda(self):
        return self.cuda
