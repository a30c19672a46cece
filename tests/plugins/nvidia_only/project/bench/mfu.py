# Model FLOPs utilisation as training scripts write it: peak tables keyed by GPU name,
# a peak returned by a lookup function, a peak passed by keyword, and numbers that merely
# equal a GPU peak (decoys: not used as a peak, so not NVIDIA-only).
import torch

GPU_PEAK = {"a100": 312e12, "h100": 989e12, "4090": 165.2e12}
H100_BF16_PEAK_FLOPS = 989.5e12
SPECS = {"h100": (989e12, 80), "b200": (2.25e15, 180)}


def get_peak_flops(device_name):
    if "H100" in device_name:
        if "PCIe" in device_name:
            return 756e12
        return 989e12
    if "V100" in device_name:
        return 125e12
    if "L40S" in device_name:
        return 362e12
    return float("inf")


def mfu(flops_per_step, dt, peak=312e12):
    achieved = flops_per_step / dt
    return achieved / 989.4e12, report(achieved, peak_flops=1979e12)


def report(achieved, peak_flops):
    return achieved / peak_flops


# decoys: the same values as quantities that are no peak
MASS_KG = 125e12
budget_bytes = 312e12
timeout_ns = 989e12
delay = 756e12 / 2
samples = [125e12, 362e12]
label = "312e12 flops"  # 312e12 in a comment


def scale(x):
    return x * 2.25e15
