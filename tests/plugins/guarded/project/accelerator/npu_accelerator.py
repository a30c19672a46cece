import torch


class NpuAccelerator:
    def memory(self, index):
        return torch.npu.mem_get_info(index)
