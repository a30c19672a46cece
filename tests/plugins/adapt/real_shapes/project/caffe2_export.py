# detectron2's Caffe2 export: device moves through Caffe2's own GPU copy operators.
import torch


def to_device(t, device_str):
    src = t.device
    dst = torch.device(device_str)
    if src == dst:
        return t
    elif src.type == "cuda" and dst.type == "cpu":
        return torch.ops._caffe2.CopyGPUToCPU(t)
    elif src.type == "cpu" and dst.type == "cuda":
        return torch.ops._caffe2.CopyCPUToGPU(t)
    raise RuntimeError("Can't cast tensor from device {} to device {}".format(src, dst))
