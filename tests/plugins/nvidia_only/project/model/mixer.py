# Import block in the style of the Hugging Face Mamba2 port and the Mamba2 block of
# state-spaces/mamba (mamba_ssm/modules/mamba2.py): optional CUDA fast paths.
import torch
import torch.nn as nn

try:
    from causal_conv1d import causal_conv1d_fn, causal_conv1d_update
except ImportError:
    causal_conv1d_fn, causal_conv1d_update = None, None

try:
    from mamba_ssm.ops.triton.selective_state_update import selective_state_update
except ImportError:
    selective_state_update = None

import transformer_engine.pytorch as te

# FlashAttention-3 probe as in Wan 2.1's attention module
try:
    import flash_attn_interface
    FLASH_ATTN_3_AVAILABLE = True
except ModuleNotFoundError:
    FLASH_ATTN_3_AVAILABLE = False

import flashinfer


class Mixer(nn.Module):
    def __init__(self, d_model):
        super().__init__()
        self.proj = te.Linear(d_model, d_model)

    def forward(self, x):
        # a decoy: the string below is for people and names a CUDA type on purpose
        print("expects a torch.cuda.HalfTensor, see ProfilerActivity.CUDA in the docs")
        if x.type() == 'torch.cuda.HalfTensor':
            x = x.float()
        return self.proj(x.type('torch.cuda.FloatTensor'))
