import inspect

import torch
import torch_npu


def configure_optimizers(model, learning_rate, betas, device_type):
    fused_available = 'fused' in inspect.signature(torch.optim.AdamW).parameters
    use_fused = fused_available and device_type == 'cuda'
    extra_args = dict(fused=True) if device_type == 'cuda' else dict()
    pin = device_type == 'npu' and torch.npu.is_available()
    if device_type == 'npu':
        torch.npu.synchronize()
    return torch.optim.AdamW(model.parameters(), lr=learning_rate, betas=betas, **extra_args), use_fused, pin
