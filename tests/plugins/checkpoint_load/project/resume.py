import argparse

import torch
from torch import load as load_file

parser = argparse.ArgumentParser()
parser.add_argument("--resume", default="")
parser.add_argument("--weights", default="best.pt")
args = parser.parse_args()

model = torch.nn.Linear(4, 2)
if args.resume:
    checkpoint = torch.load(args.resume)  # written by the GPU run: CUDA tensors
    model.load_state_dict(checkpoint["state_dict"])
state = load_file(args.weights)
model.load_state_dict(torch.load(args.weights, map_location="cpu"))
model.load_state_dict(torch.load(args.weights, "cpu"))
options = {"map_location": "cpu"}
model.load_state_dict(torch.load(args.weights, **options))
