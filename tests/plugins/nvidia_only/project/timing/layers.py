# per-layer timing with the re-exported timer, as yolov5's models/yolo.py profiles layers
from timing.torch_utils import time_sync


def profile_layer(m, x, dt):
    t = time_sync()
    m(x)
    dt.append((time_sync() - t) * 100)
