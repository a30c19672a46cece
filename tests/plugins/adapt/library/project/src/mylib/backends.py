import torch

SYNCHRONIZE = {
    "cuda": torch.cuda.synchronize,
    "cpu": None,
}
DEVICE_COUNT = {"cuda": lambda: torch.cuda.device_count(), "cpu": lambda: 0}


def synchronize(device):
    fn = SYNCHRONIZE.get(device.type)
    if fn is not None:
        fn()
