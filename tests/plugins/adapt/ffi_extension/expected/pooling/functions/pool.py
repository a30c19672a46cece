import torch
from torch.autograd import Function
from .._ext import pool


class PoolFunction(Function):
    def __init__(self, size):
        self.size = int(size)
        self.argmax = None

    def forward(self, features, rois):
        output = torch.zeros(rois.size(0), features.size(1), self.size, self.size)
        argmax = torch.IntTensor(rois.size(0), features.size(1), self.size, self.size).zero_()
        if not features.is_cuda:
            pool.pool_forward(self.size, features, rois, output)
        else:
            output = output.cuda()
            argmax = argmax.cuda()
            pool.pool_forward_cuda(self.size, features, rois, output, argmax)
            self.argmax = argmax
        return output

    def backward(self, grad_output):
        assert(self.argmax is not None and grad_output.is_cuda)
        grad_input = torch.zeros(grad_output.size()).cuda()
        pool.pool_backward_cuda(self.size, grad_output, grad_input, self.argmax)
        return grad_input, None
