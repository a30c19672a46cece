# Builds the pooling extension with torch.utils.ffi (torch before 1.0): the CUDA sources
# are compiled in only on a machine with CUDA.
import os
import torch
from torch.utils.ffi import create_extension

sources = ['src/pool.c']
headers = ['src/pool.h']
defines = []
with_cuda = False

if torch.cuda.is_available():
    print('Including CUDA code.')
    sources += ['src/pool_cuda.c']
    headers += ['src/pool_cuda.h']
    defines += [('WITH_CUDA', None)]
    with_cuda = True

here = os.path.dirname(os.path.realpath(__file__))
extra_objects = [os.path.join(here, 'src/cuda/pool.cu.o')]

ffi = create_extension(
    '_ext.pool',
    headers=headers,
    sources=sources,
    define_macros=defines,
    relative_to=__file__,
    with_cuda=with_cuda,
    extra_objects=extra_objects
)

if __name__ == '__main__':
    ffi.build()
