# the GPU topology and memory checks of a training launcher (the shape of litgpt's
# check_nvlink_connectivity and of common memory probes)
import subprocess

import torch


def check_links():
    if torch.cuda.is_available():
        name = torch.cuda.get_device_properties(0).name.lower()
        if "nvidia" in name:
            result = subprocess.run(["nvidia-smi", "topo", "-m"], stdout=subprocess.PIPE, text=True)
            return result.stdout
        print(f"Unrecognized GPU vendor: {name}")
    print("Failed to run nvidia-smi")  # a message naming the tool is not a call
    return None


def used_memory_mb():
    out = subprocess.check_output("nvidia-smi --query-gpu=memory.used --format=csv,noheader", shell=True)
    return int(out.split()[0])
