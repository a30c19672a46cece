"""Fixture: float64 kept on the host (not affected) beside float64 sent to the device."""
import torch
from torch.utils.data import Dataset


class Points(Dataset):
    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return torch.tensor(self.rows[i]).double()


def running_sum(n):
    acc = torch.zeros(n, dtype=torch.float64)
    return acc


def on_device(n):
    return torch.zeros(n, dtype=torch.float64, device="cuda")


def step(model, x):
    return model(x.cuda().double())


def moved_in_chain(n, dev):
    return torch.zeros(n, dtype=torch.float64).to(dev)


def moved_later(n):
    table = torch.ones(n, dtype=torch.float64)
    return table.cuda()


def doubled_then_moved(rows):
    base = torch.tensor(rows)
    return base.double().cuda()


def _init_scalar(value, device, dtype):
    return torch.tensor(value, device=device, dtype=dtype)


def optimizer_step_count(state):
    # a project helper told device='cpu': the float64 step counter stays on the host
    state["step"] = _init_scalar(state["step"], device="cpu", dtype=torch.float64)
    return state
