from torch.cuda import amp as cuda_amp


def make_scaler(enabled):
    return cuda_amp.GradScaler(enabled=enabled)
