# Mirrors huggingface/pytorch-image-models timm/data/loader.py: a prefetcher keeps its own
# is_cuda flag; reading self.is_cuda is not Tensor.is_cuda. A tensor's is_cuda in the same
# file is still the device test.
import torch
import torch_npu


class PrefetchLoader:
    def __init__(self, loader, device):
        self.loader = loader
        self.is_cuda = device.type == 'npu' and torch.npu.is_available()

    def __iter__(self):
        for x in self.loader:
            if self.is_cuda:
                x = x.to(device='npu', non_blocking=True)
            if x.is_cuda:
                yield x


class Meta:
    is_cuda = False

    def moved(self):
        return self.is_cuda
