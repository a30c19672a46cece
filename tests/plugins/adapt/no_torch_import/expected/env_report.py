"""Prints what the machine has; torch is optional here."""
import platform

try:
    import torch
    import torch_npu
except ImportError:
    torch = None


def report():
    print(platform.platform())
    if torch is not None:
        print("accelerator:", torch.npu.is_available())


if __name__ == "__main__":
    report()
