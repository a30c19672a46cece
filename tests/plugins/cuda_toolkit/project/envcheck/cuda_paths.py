# Folders of the CUDA toolkit under an install prefix.
import os.path as osp
from pathlib import Path


def toolkit_dirs(prefix="/opt"):
    return [osp.join(prefix, "cuda", "lib64"), Path(prefix) / "cuda" / "include",
            Path(prefix).joinpath("cuda", "bin")]
