# A dataset cache written for Python 2, as detection code of 2017 was.
import os
import cPickle
import numpy as np
import torch


class RoidbCache(object):
    def __init__(self, name, cache_dir):
        self.name = name
        self.cache_file = os.path.join(cache_dir, name + '_gt_roidb.pkl')
        self.mode = 0755

    def load(self):
        if os.path.exists(self.cache_file):
            with open(self.cache_file, 'rb') as fid:
                roidb = cPickle.load(fid)
            print '{} gt roidb loaded from {}'.format(self.name, self.cache_file)
            return roidb
        return None

    def save(self, roidb):
        try:
            with open(self.cache_file, 'wb') as fid:
                cPickle.dump(roidb, fid, cPickle.HIGHEST_PROTOCOL)
        except IOError, e:
            print >>sys.stderr, 'cannot write', self.cache_file, e
            raise IOError, 'cache not written'
        print 'wrote gt roidb to {}'.format(self.cache_file)

    def check(self, boxes):
        if boxes.shape[1] <> 4:
            raise ValueError('boxes need 4 columns, got ' + `boxes.shape`)
        return torch.from_numpy(boxes).cuda()


PATTERN = ur'\d+'
MAX_ID = 2147483647L
