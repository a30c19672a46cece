# Pascal VOC image database: image paths and boxes read from the annotation files.
import os

import numpy as np


class voc(object):
    def __init__(self, image_set, devkit_path=os.path.join('data', 'VOCdevkit')):
        self.image_set = image_set
        self.root = devkit_path

    @property
    def roidb(self):
        return [{'boxes': np.zeros((0, 4), dtype=np.uint16)}]


if __name__ == '__main__':
    d = voc('trainval')
    res = d.roidb
    from IPython import embed; embed()
