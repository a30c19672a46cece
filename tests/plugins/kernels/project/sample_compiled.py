# nanoGPT's sample.py style: compilation is a setting, off unless the command line turns it
# on; train.py style: on by default. An option that is off unless given keeps it off too.
import argparse

import torch

compile = False  # use PyTorch 2.0 to compile the model to be faster
always = True

parser = argparse.ArgumentParser()
parser.add_argument("--compile-model", action="store_true")
parser.add_argument("--fast", action="store_true", default=True)
args = parser.parse_args()

model = torch.nn.Linear(4, 2)
if compile:
    model = torch.compile(model)
if always:
    model = torch.compile(model)
if args.compile_model:
    model = torch.compile(model)
if args.fast:
    model = torch.compile(model)
