from torch_npu.npu import amp as cuda_amp


def make_scaler(enabled):
    return cuda_amp.GradScaler(enabled=enabled)
