# Where the CUDA toolkit's headers are: a folder named cuda, not a device.
import os
from os.path import join as pjoin
from pathlib import Path


def cuda_include_dirs(prefix=None):
    home = prefix or pjoin(os.sep, "usr", "local", "cuda")
    return [pjoin(home, "include"), str(Path("/opt") / "cuda" / "include")]
