# accelerate's notebook test: a regression guard that only means something on CUDA.
import torch
import torch_npu


def assert_clean_cuda_fork_function():
    if torch.cuda.is_available():
        assert not torch._C._cuda_isInBadFork(), "child started in a bad fork"
    return torch.zeros(1).npu()
