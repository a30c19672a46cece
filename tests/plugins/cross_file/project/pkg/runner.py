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


def build_linear(mode):
    """Refuses a CUDA-only mode where CUDA is missing; the default path needs nothing."""
    if mode == "fp6":
        if not torch.cuda.is_available():
            raise ValueError("fp6 needs CUDA")
        elif torch.cuda.get_device_properties(0).major != 8:
            raise ValueError("fp6 needs an Ampere GPU")
    return torch.nn.Linear(2, 2)


def capturable_devices():
    """A table of device names that can capture graphs: nothing is placed."""
    names = ["cuda", "xpu", "hpu"]
    names.append(torch._C._get_privateuse1_backend_name())
    return names
