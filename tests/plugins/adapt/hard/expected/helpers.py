import torch_npu

def to_gpu(batch):
    return [t.npu() for t in batch]
