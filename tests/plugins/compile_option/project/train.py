import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument('--torchcompile', nargs='?', type=str, default=None, const='inductor',
                    help='compile the model with this backend (inductor when given alone)')
parser.add_argument('--model-ema', action='store_true', default=False)
parser.add_argument('--compile-always', default='inductor')


def main():
    args = parser.parse_args()
    model = torch.nn.Linear(2, 2)
    ema = None
    if args.model_ema:
        ema = torch.nn.Linear(2, 2)
        if args.torchcompile:
            ema = torch.compile(ema, backend=args.torchcompile)
    if args.torchcompile:
        model = torch.compile(model, backend=args.torchcompile)
    if args.compile_always:
        model = torch.compile(model, backend=args.compile_always)
    return model, ema


if __name__ == '__main__':
    main()


def script_or_compile(model, args):
    """The model scripted or compiled, as the options ask."""
    if args.model_ema:
        model = torch.jit.script(model)
    elif args.torchcompile:
        model = torch.compile(model, backend=args.torchcompile)
    return model
