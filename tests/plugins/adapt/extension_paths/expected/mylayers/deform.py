import torch
from torchvision.ops import deform_conv2d

from mylayers import _C


def deform_forward(input, offset, weight):
    # CPU and other devices take torchvision's operator; CUDA takes the extension's kernel
    if not input.is_cuda:
        return deform_conv2d(input, offset, weight)
    else:
        out = input.new_empty(input.shape)
        _C.deform_conv_forward(input, offset, weight, out)
        return out


def modulated_forward(input, offset, mask, weight):
    # a guard: anything but CUDA stops here with a clear error
    if not input.is_cuda:
        raise NotImplementedError("modulated deformable convolution needs CUDA")
    out = input.new_empty(input.shape)
    _C.modulated_deform_conv_forward(input, offset, mask, weight, out)
    return out


def nms(boxes, scores, threshold):
    if boxes.is_cuda:
        return _C.nms(boxes, scores, threshold)
    return torch.ops.torchvision.nms(boxes, scores, threshold)


def to_gpu(t):
    # an ordinary move: migrated
    return t.npu()
