import torch


class Runner:
    """Builds on the GPU it is given: constructing one needs CUDA."""

    def __init__(self, rank=0):
        self.rank = rank
        self._bind()

    def _bind(self):
        torch.cuda.set_device(self.rank)

    def step(self, x):
        return x * 2


class Reporter:
    """Constructing one needs nothing; only flush() touches the GPU."""

    def __init__(self):
        self.lines = []

    def flush(self):
        torch.cuda.synchronize()
        return self.lines


class Prefetcher:
    """Depends on CUDA only where a caller leaves `device` out."""

    def __init__(self, loader, device="cuda"):
        self.loader = loader
        self.device = device
