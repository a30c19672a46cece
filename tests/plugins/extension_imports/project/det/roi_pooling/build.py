# Builds det/roi_pooling/_ext/roi_pooling from the C sources and the nvcc-compiled kernel.
import os
from torch.utils.ffi import create_extension

this_file = os.path.dirname(os.path.realpath(__file__))
extra_objects = [os.path.join(this_file, 'src/cuda/roi_pooling.cu.o')]

ffi = create_extension(
    '_ext.roi_pooling',
    headers=['src/roi_pooling.h'],
    sources=['src/roi_pooling.c'],
    relative_to=__file__,
    with_cuda=True,
    extra_objects=extra_objects,
)

if __name__ == '__main__':
    ffi.build()
