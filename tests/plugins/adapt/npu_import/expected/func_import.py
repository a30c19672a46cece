import torch


def init_ascend():
    import torch_npu  # noqa: F401

    return torch.npu.is_available()


def place(model):
    return model.to("npu")
