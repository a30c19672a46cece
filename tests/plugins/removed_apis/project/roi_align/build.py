# Builds the RoIAlign C extension the way torch 0.3 projects did, through torch's cffi helper.
import os
from torch.utils.ffi import create_extension

here = os.path.dirname(os.path.realpath(__file__))
ffi = create_extension(
    '_ext.roi_align',
    headers=['src/roi_align.h'],
    sources=['src/roi_align.c'],
    relative_to=__file__,
)

if __name__ == '__main__':
    ffi.build()
