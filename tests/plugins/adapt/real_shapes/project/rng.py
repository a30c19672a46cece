# peft's SVD init: a forked RNG for a deterministic result, on the weight's device.
import torch


def svd_init(weight, random_seed=0):
    fork_devices = [weight.device] if weight.device.type == "cuda" else []
    with torch.random.fork_rng(devices=fork_devices):
        torch.manual_seed(random_seed)
        return torch.randn(2, 2)
