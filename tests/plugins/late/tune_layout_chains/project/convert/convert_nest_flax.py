# Excerpt of timm's convert/convert_nest_flax.py: a weight conversion script (dropped).
import torch


def convert_qkv(w_qkv):
    return torch.tensor(w_qkv).flatten(1).permute(1, 0)
