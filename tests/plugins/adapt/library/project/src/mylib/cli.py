import argparse

import torch

from mylib.models import build


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()
    print(build().to(args.device))


if __name__ == "__main__":
    main()
