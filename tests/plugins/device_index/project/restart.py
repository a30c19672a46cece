# Megatron-LM's shape: device_id is a torch.device (PyTorch's init_process_group takes one
# under that name), not an integer, so passing it as the device is no bare index (decoy).
import torch


def init(local_rank):
    device_id = torch.device(f"npu:{local_rank}")
    torch.distributed.init_process_group("hccl", device_id=device_id)
    return device_id


def force_backend_init(device_id):
    tensor = torch.ones(128, device=device_id)
    torch.distributed.all_reduce(tensor)


def by_index(gpu):
    dev = int(gpu)
    return torch.zeros(2, device=dev)  # bound to an integer here: reported
