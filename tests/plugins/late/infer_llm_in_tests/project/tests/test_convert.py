import torch
from transformers import AutoModelForCausalLM

from model import GPT


def test_same_logits(tmp_path):
    theirs = AutoModelForCausalLM.from_pretrained(tmp_path)
    ours = GPT()
    x = torch.tensor([[1, 2, 3]])
    torch.testing.assert_close(ours(x), theirs(x).logits)
