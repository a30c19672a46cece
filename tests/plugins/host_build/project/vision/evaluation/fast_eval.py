"""COCO evaluation in C++: the extension's CPU functions, on host arrays."""
from vision import _C


def evaluate(a, b):
    return _C.box_iou(a.cpu(), b.cpu())
