# litgpt's litgpt/utils.py (v0.5.13), cut to check_nvlink_connectivity and its NVIDIA
# helper: the vendor is read with torch.cuda, then `nvidia-smi topo -m` runs. Rewriting
# the CUDA calls would leave a function that runs nvidia-smi on the NPU host. Below them,
# the same check as litgpt first wrote it (nvidia-smi in the function itself), a memory
# report through NVML, and code of the same file that migrates as usual.
import os
import re
import subprocess

import pynvml
import torch
import torch_npu


def check_nvlink_connectivity(fabric=None):
    if fabric is not None:
        custom_print = fabric.print
    else:
        custom_print = print

    if os.getenv("RANK", "0") == "0":
        try:
            if torch.cuda.is_available():
                device_properties = torch.cuda.get_device_properties(0)
                gpu_name = device_properties.name.lower()
                if "nvidia" in gpu_name:
                    _check_nvidia_connectivity(custom_print)
                else:
                    custom_print(f"Unrecognized GPU vendor: {device_properties.name}")
            else:
                custom_print("No GPUs available")
        except Exception as e:
            custom_print(f"An error occurred while checking GPU connectivity: {e}")


def _check_nvidia_connectivity(custom_print):
    result = subprocess.run(["nvidia-smi", "topo", "-m"], stdout=subprocess.PIPE, text=True)
    if result.returncode != 0:
        custom_print("Failed to run nvidia-smi")
        return
    lines = result.stdout.strip().split("\n")
    start_index = next((i for i, line in enumerate(lines) if "GPU0" in line), None)
    headers = lines[start_index].split()
    gpu_count = len([h for h in headers if re.match(r"^GPU\d+$", h)])
    all_nvlink = True
    for line in lines[start_index + 1 : start_index + 1 + gpu_count]:
        if not all("NV" in conn for conn in line.split()[1 : 1 + gpu_count] if conn != "X"):
            all_nvlink = False
    custom_print("All GPUs are fully connected via NVLink." if all_nvlink else "Warning: not all GPUs use NVLink.")


def check_nvlink_first_version(custom_print=print):
    result = subprocess.run("nvidia-smi topo -m", shell=True, stdout=subprocess.PIPE, text=True)
    gpu_count = torch.cuda.device_count()
    custom_print(result.stdout.count("NV") >= gpu_count * (gpu_count - 1))


def gpu_memory_report():
    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
    return pynvml.nvmlDeviceGetMemoryInfo(handle).used


def setup(fabric, seed=1337):
    if torch.npu.is_available():
        torch.npu.manual_seed(seed)
    check_nvlink_connectivity(fabric)
    return torch.device("npu", fabric.local_rank)
