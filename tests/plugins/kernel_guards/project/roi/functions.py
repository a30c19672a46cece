# RoI pooling through the compiled extension: a CPU kernel, a CUDA kernel, and a backward
# pass for CUDA only.
import torch
from torch.autograd import Function
from ._ext import roi_pooling


class RoIPoolFunction(Function):
    @staticmethod
    def forward(ctx, features, rois, size):
        output = torch.zeros(rois.size(0), features.size(1), size, size)
        argmax = torch.zeros(rois.size(0), features.size(1), size, size, dtype=torch.int32)
        if not features.is_cuda:
            roi_pooling.roi_pooling_forward(size, size, 1.0, features.permute(0, 2, 3, 1), rois, output)
        else:
            output = output.cuda()
            argmax = argmax.cuda()
            roi_pooling.roi_pooling_forward_cuda(size, size, 1.0, features, rois, output, argmax)
        ctx.save_for_backward(rois, argmax)
        ctx.shape = features.size()
        ctx.size = size
        return output

    @staticmethod
    def backward(ctx, grad_output):
        assert grad_output.is_cuda
        rois, argmax = ctx.saved_tensors
        grad_input = torch.zeros(ctx.shape).cuda()
        roi_pooling.roi_pooling_backward_cuda(ctx.size, ctx.size, 1.0, grad_output, rois, grad_input, argmax)
        return grad_input, None, None


def pooled_grad(grad_output, rois, grad_input, argmax):
    if not grad_output.is_cuda:
        raise RuntimeError("RoI pooling backward needs CUDA tensors")
    roi_pooling.roi_pooling_backward_cuda(7, 7, 1.0, grad_output, rois, grad_input, argmax)
    return grad_input
