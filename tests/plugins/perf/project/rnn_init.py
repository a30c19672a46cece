"""Fixture: a recurrent layer that runs, and the same classes only named in type tests."""
import math

import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(8, 8)


def init_weights(module):
    if isinstance(module, (nn.RNN, nn.GRU, nn.LSTM)):
        stdv = 1.0 / math.sqrt(module.hidden_size)
        for weight in module.parameters():
            nn.init.uniform_(weight, -stdv, stdv)
    elif issubclass(type(module), nn.LSTM):
        pass
