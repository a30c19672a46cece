# litgpt's extensions/thunder/strategies/thunder_ddp.py, cut to its barrier: the NCCL test
# picks the barrier that names the GPU (device_ids, which only NCCL takes), and the else
# branch is the one HCCL needs; the backend given to the process group is rewritten.
import torch
import torch_npu
import torch.distributed


class Strategy:
    process_group_backend = "hccl"

    def __init__(self, index):
        self.index = index

    def setup(self):
        torch.distributed.init_process_group(backend=self.process_group_backend)

    def barrier(self):
        if torch.distributed.get_backend() == "nccl":
            torch.distributed.barrier(device_ids=[self.index])
        else:
            torch.distributed.barrier()
