import torch

try:
    from apex.normalization import FusedLayerNorm
except ImportError:
    FusedLayerNorm = torch.nn.LayerNorm
