import torch
import torch_npu


def make_scaler(device, amp_dtype):
    """Loss scaling only for float16; bfloat16 does not need it."""
    scaler = None
    if device.type in ('cuda', 'npu') and amp_dtype == torch.float16:
        scaler = torch.amp.GradScaler(device.type)
    return scaler


def pin_memory_for(device_type):
    return device_type in ["cuda", "npu", "xpu"]


def fused_for(device, fused_available):
    return fused_available and device.type in ("cuda",)


def label_for(mode):
    return mode in ('cuda', 'cpu')


def main():
    device = torch.device('npu')
    scaler = make_scaler(device, torch.float16)
    print(scaler, pin_memory_for(device.type), fused_for(device, True), label_for('cpu'))


if __name__ == '__main__':
    main()
