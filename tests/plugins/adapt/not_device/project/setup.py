import torch
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension

ext_modules = [CppExtension("fused_cpu", ["csrc/fused.cpp"])]
if torch.cuda.is_available():
    ext_modules.append(CUDAExtension("fused_cuda", ["csrc/fused.cpp", "csrc/fused_kernel.cu"]))

setup(
    name="fused",
    ext_modules=ext_modules,
    cmdclass={"build_ext": BuildExtension},
)
