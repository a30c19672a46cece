import torch
import torch_npu
import clip


class ImageEmbedder(torch.nn.Module):
    # the device is a default parameter that a library call receives
    def __init__(self, model, device='npu' if torch.npu.is_available() else 'cpu'):
        super().__init__()
        self.model, _ = clip.load(name=model, device=device)


def encode(texts, device: str = "npu"):
    return clip.tokenize(texts).to(device)


def backend_label(flavour="cuda"):
    # not a device: a label for people
    return "backend: " + flavour


# a device choice, whatever the name it is kept under
RUN_ON = "npu" if torch.npu.is_available() else "cpu"


def model_device(model):
    # the default of a getattr for a device attribute is a device
    return getattr(model, "device", "npu")


def kernel_flavour(cfg):
    # not a device attribute: left for a person
    return getattr(cfg, "flavour", "cuda")
