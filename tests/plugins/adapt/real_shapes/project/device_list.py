# detectron2's tests: the devices to run on, CUDA's only when a GPU is there.
import torch

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def devices():
    return ["cpu"] + ["cuda"] if torch.cuda.is_available() else ["cpu"]
