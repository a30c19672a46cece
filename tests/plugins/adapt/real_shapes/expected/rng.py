# peft's SVD init: a forked RNG for a deterministic result, on the weight's device.
import torch
import torch_npu


def svd_init(weight, random_seed=0):
    fork_devices = [weight.device] if weight.device.type == "npu" else []
    with torch.random.fork_rng(devices=fork_devices, device_type="npu"):
        torch.manual_seed(random_seed)
        return torch.randn(2, 2)
