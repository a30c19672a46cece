# Excerpt of lucidrains/vit-pytorch, vit_pytorch/simple_flash_attn_vit.py (MIT): the
# CUDA attention config exists only where torch.cuda is available, and is_cuda picks it.
from collections import namedtuple

import torch
import torch.nn.functional as F
from torch import nn

Config = namedtuple('FlashAttentionConfig', ['enable_flash', 'enable_math', 'enable_mem_efficient'])


class Attend(nn.Module):
    def __init__(self, use_flash = False):
        super().__init__()
        self.use_flash = use_flash

        # determine efficient attention configs for cuda and cpu

        self.cpu_config = Config(True, True, True)
        self.cuda_config = None

        if not torch.cuda.is_available() or not use_flash:
            return

        device_properties = torch.cuda.get_device_properties(torch.device('cuda'))

        if device_properties.major == 8 and device_properties.minor == 0:
            self.cuda_config = Config(True, False, False)
        else:
            self.cuda_config = Config(False, True, True)

    def flash_attn(self, q, k, v):
        config = self.cuda_config if q.is_cuda else self.cpu_config

        with torch.backends.cuda.sdp_kernel(**config._asdict()):
            out = F.scaled_dot_product_attention(q, k, v)

        return out


def pin(batch):
    # a plain test of where the tensor lives: it becomes is_npu
    if batch.is_cuda:
        return batch
    return batch.pin_memory()


def sync_if_gpu(x):
    return torch.cuda.synchronize() if x.is_cuda else None
