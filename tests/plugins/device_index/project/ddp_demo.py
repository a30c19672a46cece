# The shapes of the official PyTorch DDP tutorial (demo_basic) and of pytorch/examples'
# imagenet/main.py (--gpu declared with type=int), where device indices are bare integers.
import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

NUM_GPUS = 8
LOG_EVERY = 10


class ToyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net1 = nn.Linear(10, 10)

    def forward(self, x):
        return self.net1(x)


def demo_basic(rank, world_size):
    dist.init_process_group("hccl", rank=rank, world_size=world_size)
    model = ToyModel().to(rank)
    ddp_model = DDP(model, device_ids=[rank])
    outputs = ddp_model(torch.randn(20, 10))
    labels = torch.randn(20, 5).to(rank)
    return outputs, labels


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpu", default=None, type=int, help="GPU id to use.")
    parser.add_argument("--device-index", dest="device_index", type=int, default=0)
    parser.add_argument("--epochs", type=int, default=90)
    args = parser.parse_args()
    local_rank = int(os.environ["LOCAL_RANK"])
    buf = torch.zeros(4, device=local_rank)
    where = torch.device(args.device_index)
    staged = torch.ones(2).to(0)
    # decoys: a dtype, a named device, a string, a count that is not a device
    half = torch.ones(2).to(torch.float16)
    npu = torch.ones(2).to("npu:0")
    text = "a.to(0) in a string"
    steps = torch.arange(args.epochs).to(torch.long)
    print(NUM_GPUS, LOG_EVERY, text)  # integers that are never a device
    return buf, where, staged, half, npu, steps
