# nanoGPT's train.py shape: the device is a string set in a config; under automatic
# migration it stays 'cuda' (transfer_to_npu maps it), so a test of the string must stay
# too, or device_type turns 'cpu' and autocast silently off; a device object's type is
# 'npu' on the NPU, so its test is rewritten
from contextlib import nullcontext

import torch

device = 'cuda'
device_type = 'cuda' if 'cuda' in device else 'cpu'
ctx = nullcontext() if device_type == 'cpu' else torch.amp.autocast(device_type=device_type, dtype=torch.bfloat16)
x = torch.zeros(2, device=device)
on_accelerator = x.device.type == 'npu'
