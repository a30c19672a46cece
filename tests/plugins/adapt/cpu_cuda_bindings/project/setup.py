import os

from setuptools import setup
from torch.utils import cpp_extension

extensions = [
    cpp_extension.CppExtension(
        "mt.libbase",
        sources=[
            "ops/base.cpp",
        ],
    ),
    cpp_extension.CppExtension(
        "alignment_train_cpu_binding",
        sources=[
            "ops/alignment_train_cpu.cpp",
        ],
    ),
]
if "CUDA_HOME" in os.environ:
    extensions.append(
        cpp_extension.CppExtension(
            "alignment_train_cuda_binding",
            sources=[
                "ops/alignment_train_kernel.cu",
                "ops/alignment_train_cuda.cpp",
            ],
        )
    )

setup(
    name="mt",
    packages=["mt", "mt.modules"],
    ext_modules=extensions,
    cmdclass={"build_ext": cpp_extension.BuildExtension},
)
