import torch
from torch import nn


def build_model(checkpoint=None):
    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU())
    if checkpoint is not None:
        model.load_state_dict(torch.load(checkpoint, map_location="cpu"))
    return model
