import inspect

import torch


def configure_optimizers(model, learning_rate, betas, device_type):
    fused_available = 'fused' in inspect.signature(torch.optim.AdamW).parameters
    use_fused = fused_available and device_type == 'cuda'
    extra_args = dict(fused=True) if device_type == 'cuda' else dict()
    pin = device_type == 'cuda' and torch.cuda.is_available()
    if device_type == 'cuda':
        torch.cuda.synchronize()
    return torch.optim.AdamW(model.parameters(), lr=learning_rate, betas=betas, **extra_args), use_fused, pin
