# Settings merged the way 2016 detection code merged its YAML: valid Python 3 syntax,
# but every helper below stops on Python 3 when it runs.
import cPickle
from urllib2 import urlopen

import numpy as np

_DEFAULTS = {'TRAIN': {'SCALES': (600,)}, 'TEST': {'NMS': 0.3}}


def merge(a, b):
    for k, v in a.iteritems():
        if not b.has_key(k):
            raise KeyError('{} is not a valid config key'.format(k))
        if isinstance(v, basestring):
            v = unicode(v)
        b[k] = v


def pick(n):
    return [long(i) for i in xrange(n)]


def ask():
    return raw_input('config file: ')


def load(path):
    with open(path, 'rb') as f:
        return cPickle.load(f)


def fetch(url):
    return np.frombuffer(urlopen(url).read(), dtype=np.uint8)
