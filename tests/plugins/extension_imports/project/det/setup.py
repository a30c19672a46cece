# Builds the detector's Cython helpers and its GPU NMS (nvcc through a customised compiler).
import os
from distutils.core import setup
from distutils.extension import Extension
from Cython.Distutils import build_ext
import numpy as np


def locate_cuda():
    """The CUDA toolkit's paths, from CUDAHOME or the nvcc on the PATH."""
    home = os.environ.get('CUDAHOME', '/usr/local/cuda')
    nvcc = os.path.join(home, 'bin', 'nvcc')
    if not os.path.exists(nvcc):
        raise EnvironmentError('nvcc not found: set CUDAHOME')
    return {'home': home, 'nvcc': nvcc, 'include': os.path.join(home, 'include'),
            'lib64': os.path.join(home, 'lib64')}


CUDA = locate_cuda()


def use_nvcc_for_cu(compiler):
    compiler.src_extensions.append('.cu')
    default = compiler.compiler_so
    original = compiler._compile

    def _compile(obj, src, ext, cc_args, extra_postargs, pp_opts):
        if os.path.splitext(src)[1] == '.cu':
            compiler.set_executable('compiler_so', CUDA['nvcc'])
            postargs = extra_postargs['nvcc']
        else:
            postargs = extra_postargs['gcc']
        original(obj, src, ext, cc_args, postargs, pp_opts)
        compiler.compiler_so = default

    compiler._compile = _compile


class cuda_build_ext(build_ext):
    def build_extensions(self):
        use_nvcc_for_cu(self.compiler)
        build_ext.build_extensions(self)


ext_modules = [
    Extension("utils.cython_bbox", ["utils/bbox.pyx"],
              extra_compile_args={'gcc': ["-Wno-cpp"]}, include_dirs=[np.get_include()]),
    Extension("nms.cpu_nms", ["nms/cpu_nms.pyx"],
              extra_compile_args={'gcc': ["-Wno-cpp"]}, include_dirs=[np.get_include()]),
    Extension('nms.gpu_nms', ['nms/nms_kernel.cu', 'nms/gpu_nms.pyx'],
              library_dirs=[CUDA['lib64']], libraries=['cudart'], language='c++',
              extra_compile_args={'gcc': [], 'nvcc': ['-c', '--compiler-options', "'-fPIC'"]},
              include_dirs=[np.get_include(), CUDA['include']]),
]

setup(name='det', ext_modules=ext_modules, cmdclass={'build_ext': cuda_build_ext})
