"""A language model trained with SGD written by hand, as in the classic word-level example."""
import argparse

import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, default=20.0)
parser.add_argument("--clip", type=float, default=0.25)
args = parser.parse_args()
torch.manual_seed(1111)

model = nn.LSTM(8, 8)
ema = nn.LSTM(8, 8)
criterion = nn.MSELoss()
lr = args.lr


def train_step(x, y):
    model.zero_grad()
    out, _ = model(x)
    loss = criterion(out, y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
    for p in model.parameters():
        p.data.add_(p.grad, alpha=-lr)
    # not an update from the gradient: an average of the weights
    for q in ema.parameters():
        q.data.mul_(0.99)
    return loss.item()


if __name__ == "__main__":
    for epoch in range(2):
        train_step(torch.randn(4, 2, 8), torch.randn(4, 2, 8))
        lr /= 4.0
