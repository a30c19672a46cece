# The same imports written for Python 3: relative, guarded, or from the package.
from . import layers
from .boxes import clip_boxes
import detector.boxes

try:
    import common
except ImportError:
    common = None
