import torch
import torch_npu

device_platform = "npu" if torch.npu.is_available() else "cpu"
# a question about the vendor, not a choice of device: false on the NPU, as it should be
is_nvidia = device_platform == "cuda"
is_tf32_supported = is_nvidia and torch.cuda.get_device_capability(0)[0] >= 8
