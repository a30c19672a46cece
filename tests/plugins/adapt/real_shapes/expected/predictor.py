# detectron2 demo/predictor.py's shape: the device count and the device built from it by
# .format inside a choice; migrated together, or the NPU host builds on cuda:0
import torch
import torch_npu


def setup(cfg, gpuid):
    num_gpus = torch.npu.device_count()
    cfg.MODEL.DEVICE = "npu:{}".format(gpuid) if num_gpus > 0 else "cpu"
    device = "npu:" + str(gpuid) if num_gpus else "cpu"
    return cfg, device
