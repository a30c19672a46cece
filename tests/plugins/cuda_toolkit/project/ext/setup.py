# Builds the crop extension: the CUDA toolkit is found from CUDAHOME, else from nvcc on
# the PATH, else in its usual place.
import os
from os.path import join as pjoin
from distutils.core import setup
from distutils.extension import Extension


def toolkit():
    if 'CUDAHOME' in os.environ:
        return os.environ['CUDAHOME']
    for d in os.environ['PATH'].split(os.pathsep) + [pjoin(os.sep, 'usr', 'local', 'cuda', 'bin')]:
        if os.path.exists(pjoin(d, 'nvcc')):
            return os.path.dirname(d)
    return os.sep.join(['', 'opt', 'cuda'])


HOME = toolkit()

setup(name='crop',
      ext_modules=[Extension('crop_ext', ['src/crop.c'],
                             include_dirs=[pjoin(HOME, 'include')],
                             library_dirs=[pjoin(HOME, 'lib64')],
                             libraries=['cudart'])])
