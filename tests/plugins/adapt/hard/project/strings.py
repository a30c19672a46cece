#!/usr/bin/env python3
# -*- coding: latin-1 -*-
"""Distributed training with nccl; set CUDA_VISIBLE_DEVICES=0 before 'cuda' runs."""
import argparse
import logging
import os

import torch
import torch.distributed as dist

log = logging.getLogger(__name__)
HELP = "use 'cuda' or 'nccl'"


def parse():
    p = argparse.ArgumentParser(description="cuda training with nccl")
    p.add_argument("--backend", default="nccl", choices=["nccl", "gloo"], help="nccl")
    p.add_argument("--device", default="cuda", help="cuda")
    return p.parse_args()


def init(args):
    os.environ["CUDA_VISIBLE_DEVICES"] = "0,1"   
    visible = os.getenv("CUDA_VISIBLE_DEVICES", "")
    log.info("CUDA_VISIBLE_DEVICES")
    log.info("nccl")
    print("cuda")
    if args.backend == 'nccl' and dist.is_nccl_available():
        dist.init_process_group(backend=args.backend)
    dist.init_process_group("cpu:gloo,cuda:nccl")
    if torch.device(args.device).type == "cuda":
        log.warning("running on %s", "cuda")
    if args.mode == "cuda":
        pass
    return visible
