# Picks the accelerator once per process; each one lives in its own module.
import os

SUPPORTED_ACCELERATORS = ["cuda", "npu", "cpu"]
_accelerator = None


def get_accelerator():
    global _accelerator
    if _accelerator is not None:
        return _accelerator
    name = os.environ.get("ACCELERATOR")
    if name is None:
        try:
            import torch_npu  # noqa: F401

            name = "npu"
        except ImportError:
            pass
    if name is None:
        import torch

        if torch.cuda.device_count() > 0 and torch.cuda.is_available():
            name = "cuda"
    if name is None:
        name = "cpu"
    if name == "cuda":
        from .cuda_accelerator import CUDA_Accelerator

        _accelerator = CUDA_Accelerator()
    elif name == "npu":
        from .npu_accelerator import NPU_Accelerator

        _accelerator = NPU_Accelerator()
    else:
        from .cpu_accelerator import CPU_Accelerator

        _accelerator = CPU_Accelerator()
    return _accelerator
