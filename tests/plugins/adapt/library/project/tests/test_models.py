import torch

from mylib.models import build


def test_build():
    assert next(build().parameters()).device.type in ("cpu", "cuda")
    torch.cuda.empty_cache()
