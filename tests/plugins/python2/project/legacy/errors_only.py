# Python 2 without a print statement: only the except clause gives it away.
import torch


def load(path):
    try:
        return torch.load(path, map_location='cuda')
    except IOError, e:
        return None
