import time

import torch


def timed(fn, *args):
    torch.npu.synchronize()
    start = time.perf_counter()
    out = fn(*args)
    torch.npu.synchronize()
    return out, time.perf_counter() - start
