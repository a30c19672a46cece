# detectron2 demo/predictor.py's shape: the device count and the device built from it by
# .format inside a choice; migrated together, or the NPU host builds on cuda:0
import torch


def setup(cfg, gpuid):
    num_gpus = torch.cuda.device_count()
    cfg.MODEL.DEVICE = "cuda:{}".format(gpuid) if num_gpus > 0 else "cpu"
    device = "cuda:" + str(gpuid) if num_gpus else "cpu"
    return cfg, device
