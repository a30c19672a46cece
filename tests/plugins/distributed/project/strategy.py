# A barrier helper in the shape of litgpt's thunder strategies: device_ids goes to the
# barrier only when the process group runs NCCL; any other backend, HCCL included, takes
# the plain barrier, so the NCCL-only argument is no problem of the NPU's.
import torch.distributed as dist

BACKEND = "nccl"


def wait_for_everyone(local_rank):
    if dist.get_backend() == "nccl":
        dist.barrier(device_ids=[local_rank])
    else:
        dist.barrier()
