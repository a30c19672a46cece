# Builds the extension (torch before 1.0): run once by hand, never part of a training run.
import torch
from torch.utils.ffi import create_extension

ffi = create_extension('_ext.crop', headers=['src/crop.h'], sources=['src/crop.c'], relative_to=__file__,
                       with_cuda=torch.cuda.is_available())

if __name__ == '__main__':
    ffi.build()
