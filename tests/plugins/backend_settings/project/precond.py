import torch

try:
    # opt_einsum picks the contraction order of einsum
    import opt_einsum
    import torch.backends.opt_einsum
    torch.backends.opt_einsum.enabled = True
    torch.backends.opt_einsum.strategy = "auto-hq"
    has_opt_einsum = True
except ImportError:
    has_opt_einsum = False


def precondition(q, g):
    """The preconditioned gradient of one Kronecker factor."""
    return torch.einsum('ij,jk,kl->il', q, g, q.t())
