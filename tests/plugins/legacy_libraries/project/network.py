# Loads pretrained weights saved as a pickled dict in a .npy file.
import numpy as np
import torch


def load_pretrained(fname, model):
    params = np.load(fname).item()
    for name, val in model.state_dict().items():
        val.copy_(torch.from_numpy(params[name]))


def load_allowed(fname):
    return np.load(fname, allow_pickle=True).item(), np.load(fname, encoding='latin1')[()]


def load_array(fname):
    return np.load(fname)
