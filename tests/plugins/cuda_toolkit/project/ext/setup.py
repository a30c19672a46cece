# Builds the crop extension: .cu sources go through nvcc, found from CUDAHOME or the PATH.
import os
from os.path import join as pjoin
from distutils.core import setup
from distutils.extension import Extension
from Cython.Distutils import build_ext


def toolkit():
    if 'CUDAHOME' in os.environ:
        home = os.environ['CUDAHOME']
        return home, pjoin(home, 'bin', 'nvcc')
    for d in os.environ['PATH'].split(os.pathsep) + [pjoin(os.sep, 'usr', 'local', 'cuda', 'bin')]:
        if os.path.exists(pjoin(d, 'nvcc')):
            return os.path.dirname(d), pjoin(d, 'nvcc')
    raise EnvironmentError('nvcc not found: set CUDAHOME')


HOME, NVCC = toolkit()


class cuda_build_ext(build_ext):
    def build_extensions(self):
        self.compiler.src_extensions.append('.cu')
        default = self.compiler._compile

        def _compile(obj, src, ext, cc_args, postargs, pp_opts):
            if os.path.splitext(src)[1] == '.cu':
                self.compiler.set_executable('compiler_so', NVCC)
            default(obj, src, ext, cc_args, postargs, pp_opts)
        self.compiler._compile = _compile
        build_ext.build_extensions(self)


setup(name='crop',
      ext_modules=[Extension('crop_ext', ['src/cuda/crop_kernel.cu', 'src/crop.pyx'],
                             include_dirs=[pjoin(HOME, 'include')],
                             library_dirs=[pjoin(HOME, 'lib64')],
                             libraries=['cudart'])],
      cmdclass={'build_ext': cuda_build_ext})
