# Anchor targets computed with numpy in a detector's data path, as the py-faster-rcnn
# layers do: the caller hands in arrays it already moved off the device (for pytorch
# the scores are (1, A, H, W)), so every mask below works on numpy arrays.
import numpy as np

from .settings import NEGATIVE, POSITIVE


def anchor_targets(scores, overlaps, boxes, hard):
    labels = np.empty((len(overlaps),), dtype=np.float32)
    labels.fill(-1)
    best = overlaps.max(axis=1)
    labels[best < NEGATIVE] = 0
    labels[best >= POSITIVE] = 1
    easy = boxes[hard != 1, :]
    keep = np.where(labels == 1)[0]
    for i in range(3):
        print(keep.tolist(), easy[labels[:len(easy)] == i])
    return labels, easy
