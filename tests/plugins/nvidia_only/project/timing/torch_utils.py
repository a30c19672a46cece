# yolov5 style: the project re-exports ultralytics' helpers from its own utils
from ultralytics.utils.torch_utils import time_sync  # noqa: F401
