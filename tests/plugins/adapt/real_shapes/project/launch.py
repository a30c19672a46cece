# detectron2's launcher: the backend named in upper case, which torch accepts.
import torch
import torch.distributed as dist


def worker(rank, world_size, dist_url):
    has_gpu = torch.cuda.is_available()
    dist.init_process_group(backend="NCCL" if has_gpu else "GLOO", init_method=dist_url, world_size=world_size, rank=rank)
    if has_gpu:
        torch.cuda.set_device(rank)
