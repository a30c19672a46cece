# Checkpoints written with h5py and numpy: every value has to reach the host to be written.
import json

import h5py
import numpy as np
import torch


def save_net(fname, net):
    h5f = h5py.File(fname, mode='w')
    for k, v in net.state_dict().items():
        h5f.create_dataset(k, data=v.cpu().numpy())


def write_arrays(folder, tensors):
    for name, t in tensors.items():
        np.save(folder + name, t.detach().cpu())


def record(stats, out):
    for k, v in stats.items():
        json.dump({k: v.item()}, out)


def report(stats):
    for k, v in stats.items():
        print(k, v.item())
