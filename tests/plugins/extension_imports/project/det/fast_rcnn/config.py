# The detector's settings.
class Config(object):
    USE_GPU_NMS = True
    GPU_ID = 0


cfg = Config()
