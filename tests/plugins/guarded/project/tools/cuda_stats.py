# Decoy: a CUDA module with no NPU sibling is the only path, so its import is reported.
try:
    import pynvml
except ImportError:
    pynvml = None


def used(index):
    return pynvml.nvmlDeviceGetMemoryInfo(pynvml.nvmlDeviceGetHandleByIndex(index)).used
