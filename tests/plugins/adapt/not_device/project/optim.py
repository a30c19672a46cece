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


# a table of the devices a feature supports: adding npu is for a person to decide
def capturable(device):
    supported = ["cuda", "xpu", "hpu"]
    return torch.zeros(1).to("cuda"), device.type in supported


# the fused flag as a dict entry and as a keyword: feature gates, not device choices
def optimizers_for(model, device):
    extra = {"fused": device.type == "cuda"}
    first = torch.optim.AdamW(model.parameters(), **extra)
    second = torch.optim.Adam(model.parameters(), fused=device.type == "cuda")
    return first, second
