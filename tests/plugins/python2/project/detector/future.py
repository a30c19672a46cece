# Absolute imports already on Python 2: a bare name means a top-level module here.
from __future__ import absolute_import
import boxes
