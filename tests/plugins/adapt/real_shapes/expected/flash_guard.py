# vit-pytorch's flash attention: a guard returns before the CUDA-only capability read.
import torch


class Attend(torch.nn.Module):
    def __init__(self, use_flash=True):
        super().__init__()
        self.cuda_config = None
        if not torch.cuda.is_available() or not use_flash:
            return
        props = torch.cuda.get_device_properties(torch.device("cuda"))
        self.cuda_config = (props.major, props.minor)
