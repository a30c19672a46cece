import argparse
from contextlib import suppress
from functools import partial

import torch

from model import Attention

parser = argparse.ArgumentParser()
parser.add_argument('--amp', action='store_true', default=False, help='mixed precision')
parser.add_argument('--amp-dtype', default='float16', help='float16 or bfloat16')


def main():
    args = parser.parse_args()
    torch.manual_seed(0)
    model = Attention(32)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    amp_autocast = suppress
    if args.amp:
        amp_dtype = torch.float16 if args.amp_dtype == 'float16' else torch.bfloat16
        amp_autocast = partial(torch.autocast, device_type='cpu', dtype=amp_dtype)
    for _ in range(3):
        with amp_autocast():
            loss = model(torch.randn(2, 8, 32)).square().mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


if __name__ == '__main__':
    main()
