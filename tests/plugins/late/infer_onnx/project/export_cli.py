# The opset as real export scripts pass it: through an argparse default (resnet-ddp's
# export_onnx.py, with a dest of its own here) and through a module constant.
import argparse

import torch

OPSET = 18


def export_fixed(model, x):
    model.eval()
    torch.onnx.export(model, x, "fixed.onnx", opset_version=OPSET, do_constant_folding=True)


def main(model, x):
    p = argparse.ArgumentParser()
    p.add_argument("--onnx-opset", dest="opset", type=int, default=17)
    p.add_argument("--safe-opset", type=int, default=13)
    args = p.parse_args()
    model.eval()
    torch.onnx.export(model, x, "cli.onnx", opset_version=args.opset, do_constant_folding=True)
    torch.onnx.export(model, x, "safe.onnx", opset_version=args.safe_opset, do_constant_folding=True)
