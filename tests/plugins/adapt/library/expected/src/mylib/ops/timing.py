import time

import torch


def timed(fn, *args):
    getattr(torch, "npu", torch.cuda).synchronize()
    start = time.perf_counter()
    out = fn(*args)
    getattr(torch, "npu", torch.cuda).synchronize()
    return out, time.perf_counter() - start
