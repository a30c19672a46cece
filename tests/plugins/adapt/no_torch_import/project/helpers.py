import importlib.util

if importlib.util.find_spec("torch") is not None:
    import torch

    def to_device(x):
        return x.cuda()
