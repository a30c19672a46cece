# Builds roi/_ext/roi_pooling from the C sources and the nvcc-compiled kernel object.
from torch.utils.ffi import create_extension

ffi = create_extension(
    '_ext.roi_pooling',
    headers=['src/roi_pooling.h'],
    sources=['src/roi_pooling.c'],
    with_cuda=True,
    extra_objects=['src/roi_pooling.cu.o'],
    relative_to=__file__,
)

if __name__ == '__main__':
    ffi.build()
