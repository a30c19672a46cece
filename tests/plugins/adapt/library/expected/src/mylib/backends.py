import torch

SYNCHRONIZE = {
    "cuda": torch.cuda.synchronize,
    "npu": torch.npu.synchronize if hasattr(torch, "npu") else None,
    "cpu": None,
}
DEVICE_COUNT = {"cuda": lambda: torch.cuda.device_count(), "npu": (lambda: torch.npu.device_count()) if hasattr(torch, "npu") else None, "cpu": lambda: 0}


def synchronize(device):
    fn = SYNCHRONIZE.get(device.type)
    if fn is not None:
        fn()
