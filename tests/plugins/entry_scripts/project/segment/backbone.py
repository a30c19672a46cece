import numpy as np
import torch
from torch import nn


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)

    def forward(self, x):
        return torch.relu(self.conv(x))

    def load_from_npy_file(self, fname):
        params = np.load(fname, allow_pickle=True).item()
        self.conv.weight.data.copy_(torch.from_numpy(params['conv1']['weights']))


if __name__ == '__main__':
    net = Backbone()
    net.load_from_npy_file('/data/models/backbone.npy')
