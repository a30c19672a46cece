import unittest

import pytest
import torch
import torch_npu

from fused import fused_gelu

requires_cuda = pytest.mark.skipif(not torch.npu.is_available(), reason="fused_gelu is a CUDA kernel")


@unittest.skipIf(not torch.npu.is_available(), "fused_gelu is a CUDA kernel")
class FusedGeluTest(unittest.TestCase):
    def test_matches_reference(self):
        x = torch.randn(8, device="npu")
        torch.testing.assert_close(fused_gelu(x), torch.nn.functional.gelu(x))


@requires_cuda
def test_backward():
    x = torch.randn(8).npu().requires_grad_()
    fused_gelu(x).sum().backward()


def test_inline_skip():
    if not torch.npu.is_available():
        pytest.skip("fused_gelu is a CUDA kernel")
    assert fused_gelu(torch.ones(2, device="npu")).shape == (2,)


def test_reference_anywhere():
    device = "npu" if torch.npu.is_available() else "cpu"
    x = torch.ones(2, device=device)
    assert torch.nn.functional.gelu(x).shape == (2,)
