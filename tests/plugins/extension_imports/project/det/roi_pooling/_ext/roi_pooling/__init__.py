# The cffi wrapper of the compiled RoI pooling kernels (CPU and CUDA).
from ._roi_pooling import lib as _lib

roi_pooling_forward = _lib.roi_pooling_forward
roi_pooling_forward_cuda = _lib.roi_pooling_forward_cuda
roi_pooling_backward_cuda = _lib.roi_pooling_backward_cuda
