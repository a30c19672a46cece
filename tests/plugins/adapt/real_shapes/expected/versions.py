# peft's benchmark records the CUDA version it ran with.
import torch


def environment():
    return {"cuda_version": torch.version.cuda if torch.cuda.is_available() else "N/A"}
