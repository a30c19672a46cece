import torch


def scalar_dtype():
    """float64 step counters only where the user made float64 the default dtype."""
    return torch.float64 if torch.get_default_dtype() == torch.float64 else torch.float32


def is_double(t):
    return t.dtype is torch.float64


def accumulate(grads):
    total = torch.zeros((), dtype=torch.float64, device=grads[0].device)
    for g in grads:
        total += g.double().sum()
    return total
