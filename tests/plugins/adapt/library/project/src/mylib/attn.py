import torch
from torch.autograd import Function
from torch.cuda.amp import custom_bwd, custom_fwd


class Scale(Function):
    @staticmethod
    @custom_fwd(cast_inputs=torch.float32)
    def forward(ctx, x):
        return x * 2

    @staticmethod
    @custom_bwd
    def backward(ctx, g):
        return g * 2


@torch.cuda.amp.custom_fwd
def scaled(x):
    with torch.autocast("cuda", enabled=False):
        y = Scale.apply(x.float())
    torch.cuda.manual_seed_all(0)
    return y


def sanitize():
    torch.cuda._sanitizer.enable_cuda_sanitizer()
