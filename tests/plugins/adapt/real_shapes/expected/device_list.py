# detectron2's tests: the devices to run on, CUDA's only when a GPU is there.
import torch
import torch_npu

DEVICES = ["cpu"] + (["npu"] if torch.npu.is_available() else [])


def devices():
    return ["cpu"] + ["npu"] if torch.npu.is_available() else ["cpu"]
