# Mirrors NVIDIA/Megatron-LM (arguments.py, transformer_config.py, training.py): names
# that merely contain "nccl" are option names, keys and values of other settings, not
# the distributed backend; only the backend itself moves to HCCL.
import argparse

import torch_npu
import torch.distributed as dist


def add_args(parser):
    parser.add_argument("--nccl-ub", action="store_true", dest='nccl_ub')
    parser.add_argument("--distributed-backend", default="hccl", choices=["hccl", "gloo"])
    parser.add_argument("--moe-flex-dispatcher-backend", default="ncclep")
    parser.add_argument("--device", default="npu", choices=["npu", "cpu"])
    return parser


def setup(args, kwargs, meta, config):
    kwargs["pad_buckets_for_high_nccl_busbw"] = True
    rank = int(meta["nccl_rank"])
    if getattr(args, 'gtp_remat_nccl_ub', False) or args.nccl_ub:
        kwargs["nccl_allocator"] = "nccl_allocator"
    if config.moe_flex_dispatcher_backend == "ncclep":
        rank += 1
    dist.init_process_group(backend=args.distributed_backend, rank=rank)
    if dist.get_backend() == "hccl":
        rank += 0
    groups = dist.new_group(backend="cpu:gloo,npu:hccl")
    return groups
