try:
    import torch_npu
except ImportError:
    pass

from .data import PrefetchLoader
