import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument('--channels-last', action='store_true', default=False,
                    help='use the channels_last memory layout')
parser.add_argument('--torchscript', dest='torchscript', action='store_true',
                    help='script the model')


def main():
    args = parser.parse_args()
    model = torch.nn.Conv2d(3, 8, 3)
    if args.channels_last:
        model = model.to(memory_format=torch.channels_last)
    if args.torchscript:
        model = torch.jit.script(model)
    x = torch.randn(1, 3, 8, 8).contiguous(memory_format=torch.channels_last)
    return model(x)


if __name__ == '__main__':
    main()
