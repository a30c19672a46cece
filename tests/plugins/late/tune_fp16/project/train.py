import random

import numpy as np
import torch
import torch.nn.functional as F
from torch import optim
from torch.utils.data import DataLoader

from data import make_dataset
from model import Net


def main(args):
    model = Net().npu()
    optimizer = optim.AdamW(model.parameters(), lr=1e-3)
    loader = DataLoader(make_dataset(), batch_size=32, shuffle=True)
    val_loader = DataLoader(make_dataset(), batch_size=32, num_workers=args.workers, pin_memory=True)
    for x, y in loader:
        idx = np.random.permutation(len(x))
        with torch.autocast("npu"):
            out = model(x[idx])
            probs = F.softmax(out.half(), dim=-1)  # autocast keeps softmax in FP32: fine
            loss = F.cross_entropy(out, y[idx])
        logp = F.log_softmax(out, dim=-1, dtype=torch.float16)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    # F.softmax(out.half()) and torch.manual_seed(0) in a comment are not code
    print("use torch.use_deterministic_algorithms(True) for F.softmax(x.half())")
    return random.choice([1, 2]), val_loader, probs, logp
