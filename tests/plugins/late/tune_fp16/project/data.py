import torch
from torch.utils.data import TensorDataset


def make_dataset():
    return TensorDataset(torch.randn(64, 8), torch.randint(0, 4, (64,)))


class DataLoader:  # a local class of the same name: not torch's
    def __init__(self, *a, **k):
        pass


loader = DataLoader([1, 2, 3])
