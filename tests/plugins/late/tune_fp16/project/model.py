import torch
from scipy.special import softmax as sp_softmax


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 4)
        self.norm = torch.nn.LayerNorm(4)

    def forward(self, x):
        h = torch.nn.functional.layer_norm(self.fc(x).half(), (4,))
        return self.norm(h.float())


def scipy_probs(a):
    return sp_softmax(a.half())  # scipy, not torch


def softmax(x):
    return x


def local(x):
    return softmax(x.half())  # the local function above, not torch's
