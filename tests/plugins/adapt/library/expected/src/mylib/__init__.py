"""mylib: a small model zoo."""
try:
    import torch_npu
except ImportError:
    pass

from .models import Net
from .utils import move

__all__ = ["Net", "move"]
