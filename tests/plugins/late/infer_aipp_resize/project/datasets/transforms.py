"""Transforms that resize the image and its boxes together."""
import random

import torchvision.transforms.functional as F


class RandomResize(object):
    def __init__(self, sizes, max_size=None):
        self.sizes = sizes
        self.max_size = max_size

    def __call__(self, img, target=None):
        size = random.choice(self.sizes)
        return F.resize(img, size), target
