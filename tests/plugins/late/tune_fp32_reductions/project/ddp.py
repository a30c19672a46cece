import torch
import torch.distributed as dist
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks as default
from torch.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as powerSGD
from torch.nn.parallel import DistributedDataParallel as DDP


def wrap(model, compress):
    ddp = DDP(model)
    if compress == "fp16":
        ddp.register_comm_hook(state=None, hook=default.fp16_compress_hook)
    elif compress == "powersgd":
        state = powerSGD.PowerSGDState(process_group=None, matrix_approximation_rank=1)
        ddp.register_comm_hook(state, default.bf16_compress_wrapper(powerSGD.powerSGD_hook))
    else:
        ddp.register_comm_hook(dist.group.WORLD, default.allreduce_hook)
    return ddp
