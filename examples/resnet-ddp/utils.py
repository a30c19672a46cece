"""Small helpers shared by the training and export scripts."""
import torch


def device_sync():
    """Wait for queued device work, on whichever accelerator is present.

    On Ascend the NPU path is used; on NVIDIA GPUs we wait for cuda work.
    """
    if hasattr(torch, "npu") and torch.npu.is_available():
        torch.npu.synchronize()
    elif torch.cuda.is_available():
        torch.cuda.synchronize()


def describe(device):
    """Readable device name for logs ("cuda:0 (A100)" on GPUs)."""
    name = str(device)
    if torch.cuda.is_available() and device.type == "cuda":
        name += " (" + torch.cuda.get_device_name(device) + ")"
    return name


def peak_memory_mb():
    """Peak allocated device memory in MB (0 when no GPU is present)."""
    if not torch.cuda.is_available():
        return 0.0
    return torch.cuda.max_memory_allocated() / 2**20
