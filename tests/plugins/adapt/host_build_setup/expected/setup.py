# Builds vision._C: from the C++ sources only where CUDA is missing, with the CUDA
# kernels where it is there (the pattern of several detection libraries).
import glob
import os

import torch
from setuptools import setup
from torch.utils.cpp_extension import CUDA_HOME, CppExtension, CUDAExtension


def get_extensions():
    sources = glob.glob(os.path.join("vision", "csrc", "*.cpp"))
    extension = CppExtension
    define_macros = []
    extra_compile_args = {"cxx": []}
    if (torch.cuda.is_available() and CUDA_HOME is not None) or os.getenv("FORCE_CUDA", "0") == "1":
        extension = CUDAExtension
        sources += glob.glob(os.path.join("vision", "csrc", "*.cu"))
        define_macros += [("WITH_CUDA", None)]
        extra_compile_args["nvcc"] = ["-O3", "-DCUDA_HAS_FP16=1"]
    return [extension("vision._C", sources, define_macros=define_macros, extra_compile_args=extra_compile_args)]


setup(name="vision", ext_modules=get_extensions(),
      cmdclass={"build_ext": torch.utils.cpp_extension.BuildExtension})
