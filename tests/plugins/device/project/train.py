"""Fixture: device placement. Moves the model to cuda (prose only)."""
import argparse
import logging

import torch
import torch.cuda as tc
from torch import cuda as torch_cuda_mod

log = logging.getLogger(__name__)
# model.cuda() in a comment is not code; neither is torch.cuda.synchronize()


def parse():
    p = argparse.ArgumentParser(description="train on cuda")
    p.add_argument("--cuda", action="store_true", help="use cuda")
    p.add_argument("--device", default="cuda:0")
    return p.parse_args()


def place(model, x, rank, i):
    args = parse()
    cuda = args.cuda
    cuda_path = "/usr/local/cuda"
    log.info("moving the model to cuda, toolkit %s", cuda_path)
    if cuda:
        model = model.cuda()
        x = x.cuda(non_blocking=True)
    dev = torch.device("cuda", rank)
    dev2 = torch.device(f"cuda:{rank}")
    dev3 = "cuda:%d" % i
    dev4 = "cuda:{}".format(i)
    y = torch.zeros(3, device='cuda:1')
    msg = f"running on cuda:{rank} now"
    return model, x, dev, dev2, dev3, dev4, y, msg


def branches(device, t):
    if device.type == "cuda":
        torch.cuda.synchronize()
    if t.is_cuda:
        pass
    if "cuda" in str(device):
        tc.empty_cache()
    torch_cuda_mod.manual_seed(0)
    if device.type == "cpu":
        pass


def unsupported():
    used = torch.cuda.memory_usage()
    cap = torch.cuda.get_device_capability()
    return used, cap, torch.cuda.is_bf16_supported()


if __name__ == "__main__":
    place(None, None, 0, 0)
