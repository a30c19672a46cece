import torch
from torch.utils.data import TensorDataset


def make_dataset():
    return TensorDataset(torch.randn(64, 8), torch.randint(0, 4, (64,)))


class DataLoader:  # a local class of the same name: not torch's
    def __init__(self, *a, **k):
        pass


loader = DataLoader([1, 2, 3])


def torch_loaders(ds):
    from torch.utils.data import DataLoader as Loader
    import torch.utils.data as tud
    a = Loader(ds, batch_size=4)  # torch's DataLoader under another name
    b = tud.DataLoader(ds, batch_size=4, num_workers=2, pin_memory=True, persistent_workers=True)  # nothing to say
    return a, b
