import os

import torch

if os.environ.get("USE_ASCEND") == "1":
    import torch_npu  # noqa: F401

torch.npu.set_device(0)
