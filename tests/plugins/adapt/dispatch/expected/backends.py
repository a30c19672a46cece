"""Per-device helpers, looked up by torch.device.type."""
import torch
import torch_npu

BACKEND_EMPTY_CACHE = {
    "cuda": torch.cuda.empty_cache,
    "npu": torch.npu.empty_cache,
    "xpu": torch.xpu.empty_cache,
    "cpu": None,
    "mps": torch.mps.empty_cache,
    "default": None,
}
BACKEND_SUPPORTS_TRAINING = {"cuda": True, "npu": True, "xpu": True, "cpu": True, "mps": False, "default": True}
BACKEND_SYNCHRONIZE = {'mps': torch.mps.synchronize, 'cuda': torch.cuda.synchronize, 'npu': torch.npu.synchronize}
DEVICE_CONFIG = {
    "cuda": {"backend": "nccl", "module": torch.cuda},
    "npu": {"backend": "hccl", "module": torch.npu},
    "xpu": {"backend": "xccl", "module": torch.xpu},
}
BACKEND_MANUAL_SEED = {
    "cpu": torch.manual_seed,
    "cuda": torch.cuda.manual_seed,
    "npu": torch.npu.manual_seed
}

# Already ported: the CUDA entry stays beside the NPU one.
BACKEND_DEVICE_COUNT = {
    "cuda": torch.cuda.device_count,
    "npu": torch.npu.device_count,
    "cpu": lambda: 0,
}

# ferry knows no NPU form of this value: the table is left to a person.
BACKEND_ARCH_LIST = {"cuda": torch.cuda.get_arch_list, "cpu": list}

# Not a device table: its keys are not all device types.
LABELS = {"cuda": "NVIDIA GPU", "title": "Accelerators"}


def empty_cache(device):
    fn = BACKEND_EMPTY_CACHE.get(device.type, BACKEND_EMPTY_CACHE["default"])
    if fn is not None:
        fn()


def synchronize_all():
    torch.npu.synchronize()
