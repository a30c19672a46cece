"""Fixture: distributed setup. Uses nccl (prose) and NCCL_DEBUG in this docstring."""
import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn import DataParallel

BACKENDS = ["gloo", "nccl"]


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--backend", default="nccl", help="collective backend: nccl or gloo")
    p.add_argument("--dist-backend", choices=BACKENDS, default='gloo')
    return p.parse_args()


def init(args):
    # dist.init_process_group("nccl") would be the usual call
    os.environ["CUDA_VISIBLE_DEVICES"] = "0,1"
    os.environ.setdefault("NCCL_SOCKET_IFNAME", "eth0")
    if os.getenv("NCCL_DEBUG"):
        print("NCCL_DEBUG is set")
    dist.init_process_group(backend=args.backend)
    dist.init_process_group("cpu:gloo,cuda:nccl")
    if args.backend == "nccl":
        print("using nccl")
    assert args.backend in ("gloo", "nccl"), "backend must be nccl or gloo"
    if dist.is_nccl_available():
        pass
    return dist.Backend.NCCL


def wrap(model, use_dp):
    if use_dp:
        return nn.DataParallel(model)
    single = DataParallel(model, device_ids=[0])
    return torch.nn.parallel.DistributedDataParallel(single)


class Launcher:
    nccl = True
    nccl_backend = "nccl-like name in an identifier"

    def describe(self):
        return "runs with NCCL_SOCKET_IFNAME from the environment"


def deterministic_cublas():
    # cuBLAS's own setting for torch.use_deterministic_algorithms on CUDA
    os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"


def check_single_gpu(args, ngpus):
    # a branch that only warns about NCCL itself: on HCCL the test is false, as it should be
    if ngpus == 1 and args.dist_backend == "nccl":
        warnings.warn("nccl backend >=2.5 requires GPU count>1")
    if args.dist_backend == "nccl":
        # not only a message: the branch changes what runs
        print("nccl: pinning the socket interface")
        args.world = 1
