# NMS that imports the GPU extension only when asked to use it.
from det.nms.py_cpu_nms import py_cpu_nms


def nms(dets, thresh, gpu=False):
    if gpu:
        from det.nms.gpu_nms import gpu_nms
        return gpu_nms(dets, thresh)
    return py_cpu_nms(dets, thresh)
