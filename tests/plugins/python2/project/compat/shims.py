# Code that runs on both Pythons: each Python 2 name is bound by a shim first.
try:
    import cPickle as pickle
except ImportError:
    import pickle
import sys

from six.moves import xrange
from past.builtins import basestring

if sys.version_info[0] == 2:
    from StringIO import StringIO
else:
    from io import StringIO

try:
    unicode
except NameError:
    unicode = str

raw_input = input


class Registry(object):
    def __init__(self):
        self._items = {}

    def has_key(self, key):
        return key in self._items


def names(n):
    registry = Registry()
    out = [unicode(i) for i in xrange(n) if registry.has_key(i)]
    if isinstance(out, basestring):
        out = raw_input(out)
    return pickle.dumps(out), StringIO()
