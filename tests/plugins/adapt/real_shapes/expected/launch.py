# detectron2's launcher: the backend named in upper case, which torch accepts.
import torch
import torch_npu
import torch.distributed as dist


def worker(rank, world_size, dist_url):
    has_gpu = torch.npu.is_available()
    dist.init_process_group(backend="HCCL" if has_gpu else "GLOO", init_method=dist_url, world_size=world_size, rank=rank)
    if has_gpu:
        torch.npu.set_device(rank)
