from setuptools import setup
from torch.utils import cpp_extension

setup(
    name="kernels",
    ext_modules=[cpp_extension.CUDAExtension("kern", ["csrc/kern.cu"])],
    cmdclass={"build_ext": cpp_extension.BuildExtension},
)
