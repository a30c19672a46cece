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


def place(model, device, num_gpus, cpu_offloading):
    # one condition for CUDA and a tuple naming the NPU: the code already runs on both
    if (device == "cuda" and num_gpus == 1 and not cpu_offloading) or device in (
        "mps",
        "xpu",
        "npu",
    ):
        model.to(device)
    return model
