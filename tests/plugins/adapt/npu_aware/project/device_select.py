import torch

try:
    import torch_npu  # noqa: F401
except ImportError:
    torch_npu = None


def get_device():
    if torch_npu is not None and torch.npu.is_available():
        return torch.device("npu")
    elif torch.cuda.is_available():
        return torch.device("cuda")
    return torch.device("cpu")


DEVICE = "npu" if torch_npu is not None else "cuda"


def empty_cache():
    if torch_npu is not None:
        torch.npu.empty_cache()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def to_accelerator(model):
    return model.cuda()
