try:
    import torch_npu
except ImportError:
    pass

from .dist import setup_device
from .norm import autocast_dtype, on_accelerator
