"""Train a small ResNet with an attention head on synthetic images.

Runs on one GPU, or on several with DistributedDataParallel when started by
torchrun (scripts/launch.sh). Written for NVIDIA GPUs: the ferry walkthrough in
README.md migrates it to Ascend NPUs. The docstring says it moves the model to
cuda, which is prose, not code.
"""
import argparse
import logging
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from models.resnet import ResNetAttn
from models.fused import fused_bias_act
from utils import device_sync

log = logging.getLogger("train")


def parse_args():
    p = argparse.ArgumentParser(description="ResNet + attention training (cuda or cpu)")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--backend", default="nccl", help="distributed backend, nccl or gloo")
    p.add_argument("--cuda", action="store_true", help="use cuda")
    p.add_argument("--amp", action="store_true", help="mixed precision on cuda")
    p.add_argument("--compile", action="store_true", help="compile the model")
    p.add_argument("--checkpoint", default="checkpoints/last.pt")
    return p.parse_args()


def synthetic_data(n=512, classes=10):
    """Random images: the example must run without downloading a data set."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, 3, 32, 32, generator=g)
    y = torch.randint(0, classes, (n,), generator=g)
    return TensorDataset(x, y)


def setup_distributed(args):
    """Join the process group when launched by torchrun; return (rank, world, local_rank)."""
    if "WORLD_SIZE" not in os.environ:
        return 0, 1, 0
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local_rank)
    dist.init_process_group(backend=args.backend)
    if args.backend == "nccl":
        log.info("using nccl for collectives")
    return dist.get_rank(), dist.get_world_size(), local_rank


def main():
    args = parse_args()
    logging.basicConfig(level=logging.INFO)
    rank, world, local_rank = setup_distributed(args)
    cuda = torch.cuda.is_available() and args.cuda
    cuda_path = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    log.info("toolkit at %s", cuda_path)

    torch.backends.cudnn.benchmark = True
    if world > 1:
        device = torch.device("cuda", local_rank)
    elif cuda:
        device = torch.device(f"cuda:{rank}")
    else:
        device = torch.device("cpu")
    log.info("moves the model to cuda device %s", device)

    model = ResNetAttn(num_classes=10).to(device, memory_format=torch.channels_last)
    if args.compile:
        model = torch.compile(model)
    if world > 1:
        model = DDP(model, device_ids=[local_rank])

    data = synthetic_data()
    sampler = DistributedSampler(data) if world > 1 else None
    loader = DataLoader(data, batch_size=args.batch_size, sampler=sampler,
                        shuffle=sampler is None, num_workers=2, pin_memory=cuda)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp)

    for epoch in range(args.epochs):
        if sampler is not None:
            sampler.set_epoch(epoch)
        start = time.time()
        for step, (x, y) in enumerate(loader):
            x = x.cuda(non_blocking=True) if cuda else x
            y = y.to(device)
            with torch.cuda.amp.autocast(enabled=args.amp):
                out = fused_bias_act(model(x))
                loss = F.cross_entropy(out, y)
            opt.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            if step % 10 == 0 and rank == 0:
                log.info("epoch %d step %d loss %.4f", epoch, step, loss.item())
        if device.type == "cuda":
            torch.cuda.synchronize()
        device_sync()
        if rank == 0:
            log.info("epoch %d took %.1fs", epoch, time.time() - start)

    if rank == 0:
        os.makedirs(os.path.dirname(args.checkpoint), exist_ok=True)
        state = model.module.state_dict() if isinstance(model, DDP) else model.state_dict()
        torch.save(state, args.checkpoint)
    if world > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
