# Code written for the NPU (DeepSpeed's HCCL backend imports torch_npu): its integer
# devices index NPUs, there is nothing to port (decoy).
import torch
import torch_npu


def scale_buffer(local_rank, size):
    return [torch.zeros(1, device=torch.device(local_rank)) for _ in range(size)]
