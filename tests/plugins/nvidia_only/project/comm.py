# Expert-parallel and runtime set-up in the style of the DeepEP README (Buffer
# initialisation) and the NVSHMEM4Py quick start (nvshmem.core with cuda.core).
import torch
import torch.distributed as dist
from deep_ep import ElasticBuffer
import nvshmem.core as nvshmem
from cuda.core.experimental import Device
from cuda.bindings import runtime as cudart
from cuda import cuda as cuda_driver
import cudnn

# import cuda  -- a comment is never an import


def setup(local_rank):
    dev = Device()
    dev.set_current()
    dist.barrier(device_ids=[local_rank])
    dist.barrier()
    print(torch.cuda.nccl.version())


class Comm:
    # decoy: a wrapper forwards its own parameter; its callers decide, and pass None on the NPU
    def barrier(self, group=None, device_ids=None):
        return dist.barrier(group=group, device_ids=device_ids)
