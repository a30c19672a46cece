import torch
import torchvision
from torch import nn
from torchvision.ops import MultiScaleRoIAlign, nms
from torchvision.ops.boxes import batched_nms


class Heads(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = MultiScaleRoIAlign(["0"], output_size=7, sampling_ratio=2)

    def forward(self, features, boxes, scores, labels, sizes):
        pooled = self.pool(features, [boxes], sizes)
        keep = batched_nms(boxes, scores, labels, 0.5)
        first = nms(boxes, scores, 0.7)
        sensitive = torchvision.ops.ps_roi_align(features["0"], [boxes], 7)
        return pooled, keep, first, sensitive
