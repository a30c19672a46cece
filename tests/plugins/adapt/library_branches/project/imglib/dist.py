import torch


def setup_device(device='cuda', local_rank=0):
    """Return the device this process trains on, one per local rank."""
    device_type = device.split(':')[0]
    if device_type != 'cpu':
        device = f'{device_type}:{local_rank}'
    if device.startswith('cuda:'):
        torch.cuda.set_device(device)
    return device
