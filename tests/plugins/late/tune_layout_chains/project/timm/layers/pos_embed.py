# Excerpt of timm's layers/pos_embed.py: resampling a checkpoint's position embedding,
# run once when the weights are loaded, not at every step (dropped).
import torch.nn.functional as F


def resample_abs_pos_embed(posemb, new_size, old_size):
    posemb = posemb.reshape(1, old_size[0], old_size[1], -1).permute(0, 3, 1, 2)
    posemb = F.interpolate(posemb, size=new_size, mode="bicubic")
    return posemb.permute(0, 2, 3, 1).reshape(1, -1, posemb.shape[1])
