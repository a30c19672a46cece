from . import config
from . import nms_wrapper
