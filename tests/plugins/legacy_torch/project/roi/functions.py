# RoI pooling written against torch 0.3's autograd: the function object keeps its
# settings and the saved tensors on self.
import torch
import torch.autograd as ag
from torch.autograd import Function
from sympy import Function as SymFunction


class RoIPoolFunction(Function):
    def __init__(self, pooled_height, pooled_width, spatial_scale):
        self.pooled_height = int(pooled_height)
        self.pooled_width = int(pooled_width)
        self.spatial_scale = float(spatial_scale)

    def forward(self, features, rois):
        self.rois = rois
        return features.new_zeros(rois.size(0), features.size(1), self.pooled_height, self.pooled_width)

    def backward(self, grad_output):
        return grad_output.new_zeros(1), None


class ScaleGrad(ag.Function):
    def forward(self, x):
        return x.clone()


class Clamp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, low):
        ctx.low = low
        return x.clamp(min=low)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class Symbol(SymFunction):
    def forward(self, x):
        return x


def pool(features, rois):
    return RoIPoolFunction(7, 7, 1.0 / 16)(features, rois), Clamp.apply(features, 0.0)
