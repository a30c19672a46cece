import glob

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension, CUDA_HOME

sources = glob.glob("csrc/*.cpp")
extension = CppExtension
if CUDA_HOME is not None:
    extension = CUDAExtension
    sources += glob.glob("csrc/*.cu")

setup(
    name="mylayers",
    packages=["mylayers"],
    ext_modules=[
        extension(
            "mylayers._C",
            sources,
            extra_compile_args={"cxx": ["-O3"]},
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
