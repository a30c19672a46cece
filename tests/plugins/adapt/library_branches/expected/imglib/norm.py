import torch


def autocast_dtype(device_type='npu'):
    """The dtype autocast casts to on this device type."""
    try:
        return torch.get_autocast_dtype(device_type)
    except AttributeError:
        # older torch has one function per device type
        if device_type == 'cpu':
            return torch.get_autocast_cpu_dtype()
        assert device_type in ('cuda', 'npu')
        return torch.get_autocast_gpu_dtype()


def on_accelerator(x):
    return ('cuda' in str(x.device) or 'npu' in str(x.device))
