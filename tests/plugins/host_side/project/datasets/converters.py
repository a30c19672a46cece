# Converters in the style of detectron2's COCO and Cityscapes loaders: functions, not
# dataset classes. OpenCV and pycocotools hand back numpy arrays, and a value the code
# has checked with isinstance(x, np.ndarray) is one: their .item() and .tolist() never
# wait for the device. A tensor's do.
import cv2
import numpy as np
import pycocotools.mask as mask_util


def areas(segmentations):
    out = []
    for segmentation in segmentations:
        area = mask_util.area(segmentation).item()
        out.append(area)
    return out


def box_lists(annotations):
    out = []
    for annotation in annotations:
        bbox = annotation["bbox"]
        if isinstance(bbox, np.ndarray):
            bbox = bbox.tolist()
        out.append(bbox)
    return out


def thumbnails(images):
    return [cv2.resize(img, (8, 8)).sum().item() for img in images]


def scores(outputs):
    out = []
    for o in outputs:
        out.append(o["score"].item())
    return out
