# numpy is imported, torch is not, but a project module it imports hands back tensors:
# the masks here may work on device tensors.
import numpy as np

from .tensor_ops import scores_of


def pick(x, floor):
    s = scores_of(x)
    kept = s[s > floor]
    return kept, np.zeros(1)
