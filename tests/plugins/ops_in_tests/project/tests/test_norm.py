import torch

from norm import LayerNorm2d


def test_export():
    model = LayerNorm2d(4).eval()
    program = torch.export.export(model, (torch.randn(1, 4, 8, 8),))
    assert program is not None
