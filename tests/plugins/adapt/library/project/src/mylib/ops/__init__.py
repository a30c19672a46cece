from .timing import timed
