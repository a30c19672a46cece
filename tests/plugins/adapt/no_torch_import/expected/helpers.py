import importlib.util

if importlib.util.find_spec("torch") is not None:
    import torch
    import torch_npu

    def to_device(x):
        return x.npu()
