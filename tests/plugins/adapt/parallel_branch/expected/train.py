import torch
import torch_npu
import torch.nn as nn


def place(model, device, distributed, gpu):
    if distributed:
        if device.type == 'npu':
            torch.npu.set_device(gpu)
            model.npu(device)
            model = nn.parallel.DistributedDataParallel(model, device_ids=[gpu])
    elif device.type == 'cuda':
        # one process drives every GPU
        model = torch.nn.DataParallel(model).cuda()
    else:
        model.to(device)
    return model


def batch_to(images, device):
    if device.type == 'npu':
        return images.npu(non_blocking=True)
    return images.to(device)
