"""Fixture: a block allocator whose table lives on the CPU, beside one that lives on the GPU."""
import torch


class HostBlocks:
    def __init__(self, n):
        self._blocks = torch.arange(1, n + 1, dtype=torch.int32, device='cpu', pin_memory=True)
        self._head = 0

    def allocate(self, k):
        out = []
        for _i in range(k):
            out.append(self._head)
            self._head = self._blocks[self._head].item()
        return out


class DeviceBlocks:
    def __init__(self, n):
        self._table = torch.arange(1, n + 1, device="cuda")
        self._head = 0

    def allocate(self, k):
        out = []
        for _i in range(k):
            out.append(self._head)
            self._head = self._table[self._head].item()
        return out
