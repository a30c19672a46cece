import unittest

import torch

from model import Head


class ScriptTester(unittest.TestCase):
    def test_script(self):
        scripted = torch.jit.script(Head())
        x = torch.randn(2, 3)
        self.assertTrue(scripted(x).equal(Head()(x)))
