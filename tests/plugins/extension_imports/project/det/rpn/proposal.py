# Region proposals: the boxes NMS keeps.
from ..fast_rcnn.nms_wrapper import nms


def proposals(dets, thresh=0.7):
    return dets[nms(dets, thresh)]
