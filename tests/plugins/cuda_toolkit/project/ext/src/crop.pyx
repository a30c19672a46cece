# Cython wrapper of the crop kernels.
cdef extern void crop_forward_launch(float *inp, float *out, int w, int h)
