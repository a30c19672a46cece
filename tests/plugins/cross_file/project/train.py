import torch
from pkg import select_device, amp_context
from pkg.utils import place, plain
import pkg.utils as U


def main():
    device = select_device()
    model = place(torch.nn.Linear(2, 2))
    with amp_context():
        y = model(torch.zeros(2, device=device))
    z = U.select_device("cpu")
    return plain(y), z
