"""Array backend: CuPy where it is installed, else NumPy, installed on first use."""
import subprocess
import sys

try:
    import cupy as xp
except ImportError:
    subprocess.check_call([sys.executable, "-m", "pip", "install", "numpy"])
    import numpy as xp


def to_array(x):
    return xp.asarray(x)
