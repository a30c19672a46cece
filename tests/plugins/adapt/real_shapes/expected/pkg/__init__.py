try:
    import torch_npu
except ImportError:
    pass
