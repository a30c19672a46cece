# NMS that falls back to the numpy version where the GPU extension was not built.
try:
    from det.nms.gpu_nms import gpu_nms
except ImportError:
    gpu_nms = None
from det.nms.py_cpu_nms import py_cpu_nms


def nms(dets, thresh):
    if gpu_nms is None:
        return py_cpu_nms(dets, thresh)
    return gpu_nms(dets, thresh)
