# yolov5's TensorRT backend: the branch imports TensorRT, so its device is CUDA's.
import torch


def load_engine(w, device):
    # yolov5's TensorRT backend: the branch imports TensorRT, its device is CUDA's
    if w.endswith(".engine"):
        import tensorrt as trt

        if device.type == "cpu":
            device = torch.device("cuda:0")
        return trt, device
    return None, device
