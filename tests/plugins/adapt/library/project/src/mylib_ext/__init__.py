import torch

try:
    import torch_npu  # noqa: F401
except ImportError:
    pass
