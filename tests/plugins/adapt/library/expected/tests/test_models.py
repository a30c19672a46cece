import torch
import torch_npu

from mylib.models import build


def test_build():
    assert next(build().parameters()).device.type in ("cpu", "cuda", "npu")
    torch.npu.empty_cache()
