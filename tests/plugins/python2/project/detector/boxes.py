# Box helpers, Python 3 clean.
import os
import numpy as np


def clip_boxes(boxes):
    return np.maximum(boxes, 0) if os.sep else boxes
