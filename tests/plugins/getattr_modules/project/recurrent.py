import torch.nn as nn


class Recurrent(nn.Module):
    """The recurrent layer is chosen by name on the command line."""

    def __init__(self, kind, size):
        super().__init__()
        if kind in ['LSTM', 'GRU']:
            self.rnn = getattr(nn, kind)(size, size, 2)
        elif kind == 'Elman':
            self.rnn = getattr(nn, 'RNN')(size, size, 2)
        else:
            # any name at all: nothing to judge
            self.rnn = getattr(nn, kind)(size, size)

    def forward(self, x):
        return self.rnn(x)[0]
