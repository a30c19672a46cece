# Prints where the CUDA toolkit is and checks that a tensor reaches the GPU.
import os
from pathlib import Path

import torch

from envcheck.cuda_paths import toolkit_dirs

CUDA_ROOT = Path(os.environ.get("CUDA_HOME", "/usr/local/cuda"))


def main():
    device = torch.device("cuda")
    x = torch.ones(2).to("cuda:0")
    print(CUDA_ROOT, toolkit_dirs(), x.device, device)


if __name__ == "__main__":
    main()
