# detectron2's tests/layers/test_blocks.py: a unittest guard on CUDA, and a body that
# moves to the GPU and uses CUDA's autocast.
import unittest
import torch
import torch_npu
from torch import nn


class TestBlocks(unittest.TestCase):
    def test_separable_conv(self):
        nn.Conv2d(3, 10, 3, groups=1)

    @unittest.skipIf(not torch.npu.is_available(), "CUDA not available")
    def test_frozen_batchnorm_fp16(self):
        from torch_npu.npu.amp import autocast

        C = 10
        input = torch.rand(1, C, 10, 10).npu()
        m = nn.BatchNorm2d(C).npu().eval()
        with autocast():
            output = m(input.half())
        self.assertEqual(output.dtype, torch.float16)
