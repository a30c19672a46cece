# mamba_ssm/utils/torch.py: the device type handed to torch.amp.custom_fwd under a key.
import torch


def custom_amp_decorator(dec, cuda_amp_deprecated):
    def decorator(*args, **kwargs):
        if cuda_amp_deprecated:
            kwargs["device_type"] = "cuda"
        return dec(*args, **kwargs)
    return decorator


custom_fwd = custom_amp_decorator(torch.amp.custom_fwd, True)
