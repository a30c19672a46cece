import torch

from model import Head


def test_scripted_head():
    assert torch.jit.script(Head())(torch.ones(1)).item() == 1.0
