# Mirrors detr util/misc.py and pytorch/examples evaluation helpers: values already moved
# to the host in the same expression, numpy arrays and tensors built without a device.
import numpy as np
import torch


def all_gather(tensors, size):
    out = []
    for tensor in tensors:
        buffer = tensor.cpu().numpy().tobytes()[:size]
        out.append(buffer)
    return out


def summarize(scores):
    arr = np.asarray(scores)
    valid = arr[arr > -1]
    idx = np.where(arr > 0)[0]
    hits = arr.nonzero()
    counts = torch.tensor([len(scores), 0])
    for i in range(3):
        print(valid.mean().item(), idx, hits, counts.tolist())


def train(model, loader, opt):
    for x, y in loader:
        x = x.cuda()
        loss = model(x).sum()
        opt.step()
        print(loss.item())
        pos = x[x > 0]
        nz = x.nonzero()
        back = x.cpu().cuda()
        print(back.tolist(), pos, nz)


def update(meters, **kwargs):
    # Mirrors detr's MetricLogger.update: the name is rebound from itself, so it is the
    # loop variable (a device tensor) that is synchronised.
    for k, v in kwargs.items():
        if isinstance(v, torch.Tensor):
            v = v.item()
        meters[k] = v
