import argparse

import torch
import torch_npu

import imglib


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--device', default='npu')
    args = parser.parse_args()
    device = torch.device(imglib.setup_device(args.device))
    x = torch.ones(2, device=device)
    print(imglib.on_accelerator(x), imglib.autocast_dtype(device.type))


if __name__ == '__main__':
    main()
