# Other spellings of an integer device, and decoys that are no device at all.
import torch
from torch import device as dev


def place(model, local_rank, args, shards):
    here = dev(local_rank)  # torch.device under another name: reported
    model.to_empty(device=3)  # device= of to_empty: reported
    label = "rank {device}".format(device=0)  # a string's format(): decoy
    model.to(*shards)  # splatted arguments say nothing: decoy
    model.to(torch.float16)  # a dtype: decoy
    model.to(
        # a comment before the device
        "cpu"
    )  # a device name: decoy
    return here, label
