"""Runs the model on the device named on the command line; torch is only imported by the
package, so this script has no `import torch` of its own."""
import torch_npu

import argparse

from mypkg import build

parser = argparse.ArgumentParser()
parser.add_argument("--device", default="npu", help="where the model runs")

if __name__ == "__main__":
    args = parser.parse_args()
    model = build().to(device=args.device)
    print(model)
