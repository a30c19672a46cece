import torch

from mt import libbase


def expected_alignment(p_choose, eps=1e-6):
    alpha = torch.zeros_like(p_choose)
    if p_choose.is_cuda:
        p_choose = p_choose.contiguous()
        from alignment_train_cuda_binding import alignment_train_cuda as alignment_train
    else:
        from alignment_train_cpu_binding import alignment_train_cpu as alignment_train
    alignment_train(p_choose, alpha, eps)
    return alpha


def base_value(x):
    # the CPU library of the project, on every device
    if getattr(x, "is_npu", False):
        x = x.cpu()
    return libbase.base(x)
