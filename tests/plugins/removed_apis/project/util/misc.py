# Training helpers written for torch 1.x: the gradient norm over a model's parameters,
# with the infinity norm taken from torch._six as code of that time did.
import torch
from torch._six import inf


def grad_norm(parameters, norm_type=2.0):
    grads = [p.grad.detach() for p in parameters if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    if float(norm_type) == inf:
        return max(g.abs().max() for g in grads)
    return torch.norm(torch.stack([torch.norm(g, norm_type) for g in grads]), norm_type)


def is_text(value):
    # a later helper reached the module through torch itself
    return isinstance(value, torch._six.string_classes)
