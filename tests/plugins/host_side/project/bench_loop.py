# A benchmark in nanoGPT's style: a sync before each clock read is the barrier that makes
# the time cover the device's work; the same sync alone in a training loop is a wait.
import time

import torch


def bench(model, batches, optimizer):
    for stage, num_steps in enumerate([10, 20]):
        t0 = time.time()
        for k in range(num_steps):
            loss = model(batches[k]).sum()
            loss.backward()
            optimizer.step()
        torch.cuda.synchronize()
        t1 = time.time()
        print(stage, t1 - t0)


def bench_npu(model, batches):
    for k in range(3):
        start = time.perf_counter()
        model(batches[k])
        torch.npu.synchronize()
        print(time.perf_counter() - start)


def train(model, batches, optimizer):
    for k in range(3):
        model(batches[k]).sum().backward()
        optimizer.step()
        torch.npu.synchronize()
