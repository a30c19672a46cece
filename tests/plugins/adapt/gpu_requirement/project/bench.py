"""Times each export format on the device asked for, as a detection project's benchmark does."""

import torch

# format, runs on the CPU, runs on a GPU
FORMATS = [("torchscript", True, True), ("openvino", True, False), ("tensorrt", False, True)]


def run(device_name):
    device = torch.device(device_name)
    for name, cpu, gpu in FORMATS:
        try:
            if "cpu" in device.type:
                assert cpu, "inference not supported on CPU"
            if "cuda" in device.type:
                # the GPU column of the table
                assert gpu, "inference not supported on GPU"
            if device.type == "cuda":
                assert torch.cuda.is_available(), "no GPU visible"
            print(name, "ok")
        except AssertionError as e:
            print(name, "skipped:", e)
