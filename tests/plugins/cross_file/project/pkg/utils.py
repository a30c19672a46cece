import torch


def select_device(name=""):
    name = str(name).strip().lower().replace("cuda:", "")  # 'cuda:0' to '0', then cpu, cuda or mps
    if name == "cpu":
        return torch.device("cpu")
    if torch.cuda.is_available():
        return torch.device("cuda:0")
    return torch.device("mps")


def amp_context(enabled=True):
    return torch.autocast("cuda", enabled=enabled)


def place(model):
    dev = select_device()
    return model.to(dev)


def plain(x):
    return x + 1
