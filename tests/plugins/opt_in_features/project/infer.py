import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument('--num-gpu', type=int, default=1, help='number of GPUs to use')
parser.add_argument('--replicas', type=int, default=4)


def main():
    args = parser.parse_args()
    model = torch.nn.Linear(4, 4)
    if args.num_gpu > 1:
        model = torch.nn.DataParallel(model, device_ids=list(range(args.num_gpu)))
    if args.replicas > 1:
        model = torch.nn.DataParallel(model)
    return model


if __name__ == '__main__':
    main()
