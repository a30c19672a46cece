"""Builds the fused bias+activation kernel ahead of time: python setup.py build_ext --inplace"""
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="resnet_ddp_example",
    version="0.1.0",
    ext_modules=[
        CUDAExtension("fused_bias_act", ["csrc/fused_bias_act.cu"], extra_compile_args={"nvcc": ["-O3"]}),
    ],
    cmdclass={"build_ext": BuildExtension},
    install_requires=["torch==2.1.0", "torchvision==0.16.0"],
)
